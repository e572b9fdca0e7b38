"""The public API is `tellmemore.__all__`: sorted, complete, importable."""

import tellmemore


def test_all_is_sorted_and_exported() -> None:
    assert tellmemore.__all__ == sorted(tellmemore.__all__)
    for name in tellmemore.__all__:
        assert hasattr(tellmemore, name), name


def test_errors_share_one_base() -> None:
    for name in tellmemore.__all__:
        obj = getattr(tellmemore, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, tellmemore.TellMeMoreError), name


def test_import_has_no_side_effects_on_logging() -> None:
    import logging

    assert not logging.getLogger("tellmemore").handlers
