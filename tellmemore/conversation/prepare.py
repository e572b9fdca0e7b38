"""An answer analysed when it is stored, not when the next question arrives.

The next turn's resolution reads the last answer (antecedent candidates in its opening
sentences, the selector's features, its vocabulary for the salience look-up, the items it
lists, the column names of the table rows it quotes). A history
turn never changes, so its analysis (`analysis.analyze`, kept by text) can be made when
the answer is complete, while the user reads it: the next question then finds it ready
and only its own words are new. A stateless caller, or a process that did not serve the
previous turn, gets the same analysis made on demand.
"""

from __future__ import annotations

import logging

from tellmemore.conversation import constants as C
from tellmemore.conversation.analysis import analyze
from tellmemore.conversation.lists import column_labels, list_items
from tellmemore.conversation.passes.readable import read_form
from tellmemore.conversation.selector import prepare_answer as prepare_for_selector

logger = logging.getLogger(__name__)


def prepare_answer(answer: str) -> None:
    """Analyse `answer` as the resolver will read it next turn. Never raises: a failure
    here only means the next turn analyses it itself."""
    try:
        text = read_form("assistant", answer)  # as the next turn's RunState reads it
        a = analyze(text)
        a.opening(C.ASSISTANT_SENTENCES)
        a.opening_words(C.ASSISTANT_SENTENCES)
        prepare_for_selector(a)
        column_labels(text)  # is a candidate a table's column name?
        list_items(text)  # "the second one", "the other one"
    except Exception:  # pragma: no cover - the analysis is pure; a bug must not cost a turn
        logger.exception("could not prepare the answer's analysis")
