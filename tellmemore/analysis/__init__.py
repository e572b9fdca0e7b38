"""Text analysis shared by the whole package: one tokenizer, one stemmer, one sentence
splitter and one lexicon of word lists and cue patterns."""

from tellmemore.analysis import lexicon, mood
from tellmemore.analysis.sentences import sentence_spans, split_sentences
from tellmemore.analysis.stemmer import stem, stems
from tellmemore.analysis.tokens import Token, norm, tokenize

__all__ = [
    "Token",
    "lexicon",
    "mood",
    "norm",
    "sentence_spans",
    "split_sentences",
    "stem",
    "stems",
    "tokenize",
]
