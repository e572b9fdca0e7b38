"""The embedded resolver's passes, one kind of follow-up each (pronoun, definite,
ordinal, alternatives, ellipsis, repair, carry), and the state they share."""
