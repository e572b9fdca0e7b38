"""Does a short message lack the conversation's subject? (issue 20, cause B: no cue,
nothing carried.)

The gate reads a message as self-contained when one of its few words is rare in the
index. In a small corpus most words are rare: "how much notice?" after two turns on
sabbaticals has "notice" (in 7 of 212 chunks), yet it asks about the sabbatical. The
decision compares specificity instead of a fixed bar: the history phrase the learned
selector would carry (conversation/selector.py, at least C.SELECTOR_VETO probable) is
more specific, by the index's own IDF, than anything the message says. A follow-up
narrows its subject with plainer words ("notice", "eligible", "paid"); a new subject
is named at least as specifically as the one it leaves ("What is a galaxy?").

Only a message that asks (analysis/mood.py) is read: a remark ("So, no game meat from now
on!") states where the conversation goes, and carrying the old subject into it is
over-binding (MTRAG govt's one topic-switch probe it fired on). A switch marker ("never
mind, ...") drops the carry in the resolver, as it drops every carry.
"""

from __future__ import annotations

from collections.abc import Sequence

from tellmemore.analysis.mood import asks
from tellmemore.conversation import constants as C
from tellmemore.conversation.binding import Salience
from tellmemore.types import Turn

REASON = "less specific than the subject"
"""The gate's reason; the carry it leads to records the pass "subject" after "carry"."""


def lacks_subject(message: str, history: Sequence[Turn], salience: Salience) -> bool:
    """Whether the selector's best history phrase is more specific than the message's most
    specific word by more than C.SUBJECT_MARGIN. False for a remark, without the model or
    an index (the features mean little without the index's IDF) or with the check off."""
    if C.SUBJECT_MARGIN < 0 or salience.term_stats is None or not asks(message):
        return False
    from tellmemore.conversation.gate import GateResult  # the gate calls this module
    from tellmemore.conversation.selector import FEATURES, default_model, each_candidate

    idf_max, msg_max_idf = FEATURES.index("idf_max"), FEATURES.index("msg_max_idf")
    model = default_model()
    if model is None:
        return False
    asked = GateResult(True, "no subject of its own")  # as the carry pass will score it
    best: tuple[float, float, float] | None = None
    for s in each_candidate(message, history, salience, asked):
        p = model.probability(s.features)
        if best is None or p > best[0]:
            best = (p, s.features[idf_max], s.features[msg_max_idf])
    if best is None or best[0] < C.SELECTOR_VETO:
        return False
    return best[1] > best[2] + C.SUBJECT_MARGIN
