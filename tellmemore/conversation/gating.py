"""A binding kept only when the documents confirm it (`conversation.binding_gate`).

A pronoun bound to the wrong phrase is shown to the user ("Answering about: joined two
months") and searched, and both go wrong together. A binding the documents confirm makes a
question that finds a close passage, or one much closer than the message as typed found;
one that does neither is as often wrong as right on handbooks the rules were not written
from (bench/results/binding_gate.md). Such a binding is withheld: the message is searched as
typed, next to the conversation's own wording (`conversation.phrasings`), which then counts
as evidence that the documents answer it. On a large index a bound question nearly always
finds a close passage, so the gate rarely acts there (MTRAG within 0.003).

A binding is also withheld when the message as typed already finds a passage at the index's
`typed_floor` (`answer.calibration`: part of the way from what unrelated questions reach to
what the index's own probes reach). There the words the conversation's phrasings add find the
passage anyway, and a binding only adds the risk of the wrong antecedent: on held-out
handbooks the resolver's bindings were wrong more often than right (session 44, Exp BM). On a
large pooled index a typed follow-up is near noise and rarely clears the floor, so its
binding, which carries the conversation's subject, stands (MTRAG within 0.001).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tellmemore.conversation import constants as C
from tellmemore.types import Resolution

if TYPE_CHECKING:
    from tellmemore.conversation.resolvers.base import ResolveContext

REFERENT_PASSES = frozenset({"pronoun", "definite", "ordinal"})
"""The passes whose bindings replace a referent by an antecedent (not a cue's rebuilt
question, not a carried topic)."""


def confirmed(res: Resolution, asked: str, context: ResolveContext) -> Resolution:
    """`res`, or `asked` searched as typed with `res`'s referent bindings withheld when the
    documents confirm none of them, or when `asked` as typed already finds a passage at the
    index's `typed_floor` (see the module docstring). Unchanged without the gate, without an
    index to ask, or without a referent binding."""
    fit = context.passage_fit
    if not context.binding_gate or fit is None or not REFERENT_PASSES & set(res.passes):
        return res
    referents = {k: v for k, v in res.bindings.items() if k not in res.cues}
    if not referents:
        return res
    bound, typed = fit([res.query, asked])
    found_as_typed = context.typed_floor is not None and typed >= context.typed_floor
    if not found_as_typed and (bound >= C.CONFIRM_FIT or bound - typed >= C.CONFIRM_GAIN):
        return res
    return Resolution(query=asked, unbound_referent=True, withheld=referents)
