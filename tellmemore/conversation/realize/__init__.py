"""The realizer: all string surgery of the conversation layer. Passes decide what to bind
or carry; only these functions edit text, and each keeps the message's own characters
outside the spans it replaces, so codes, numbers and dates survive exactly."""

from tellmemore.conversation.realize.clarify import clarification_question, parse_clarification
from tellmemore.conversation.realize.splice import (
    append_phrases,
    append_words,
    is_name,
    keep_protected,
    replacement,
    same_ordinal,
    scope_text,
    splice,
    splice_modifier,
    splice_word,
    split_end,
    time_qualifier,
)
from tellmemore.conversation.realize.substitute import substitute_subject

__all__ = [
    "append_phrases",
    "append_words",
    "clarification_question",
    "is_name",
    "keep_protected",
    "parse_clarification",
    "replacement",
    "same_ordinal",
    "scope_text",
    "splice",
    "splice_modifier",
    "splice_word",
    "split_end",
    "substitute_subject",
    "time_qualifier",
]
