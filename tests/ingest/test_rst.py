"""reStructuredText: sections at their depth, Sphinx's own markup read as its text, nothing
read but the file, and malformed files loaded rather than raised."""

from __future__ import annotations

from pathlib import Path

import pytest

from tellmemore.errors import LoaderError
from tellmemore.ingest.chunking import chunk_document
from tellmemore.ingest.loaders import load_path, load_sources, supported_extensions
from tellmemore.ingest.loaders.rst import role_text

from .helpers import one_document_assistant

pytest.importorskip("docutils")

HANDBOOK = """\
=================
Support Handbook
=================

Read this before your first on-call shift.

Escalation
==========

Every ticket gets a **first reply** within 4 hours. See the `status page
<https://status.example/>`_ before you answer.

- Page the on-call engineer for outages.

  - Use the ``#incidents`` channel.

1. Acknowledge the page.
2. Open an incident document.

Refunds
-------

+--------+--------------+
| Plan   | Refund limit |
+========+==============+
| Team   | $500         |
+--------+--------------+
| Scale  | $5,000       |
+--------+--------------+

Working hours
=============

Support is staffed 8:00-20:00 CET on weekdays.
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_rst_is_a_supported_extension() -> None:
    assert {".rst", ".rest"} <= set(supported_extensions())


def test_rst_sections_lists_and_tables_become_the_markdown_the_chunker_reads(
    tmp_path: Path,
) -> None:
    [doc] = load_path(write(tmp_path / "support.rst", HANDBOOK))
    assert (doc.title, doc.format) == ("Support Handbook", "rst")
    text = doc.text
    assert text.startswith("# Support Handbook\n\nRead this before your first on-call shift.")
    assert "## Escalation\n\nEvery ticket gets a **first reply** within 4 hours." in text
    assert "[status page](https://status.example/)" in text
    assert "- Page the on-call engineer for outages.\n  - Use the #incidents channel." in text
    assert "1. Acknowledge the page.\n2. Open an incident document." in text
    assert "### Refunds" in text
    assert "| Plan | Refund limit |\n| --- | --- |\n| Team | $500 |\n| Scale | $5,000 |" in text
    assert "## Working hours\n\nSupport is staffed" in text


def test_rst_chunks_name_their_section(tmp_path: Path) -> None:
    [doc] = load_path(write(tmp_path / "support.rst", HANDBOOK))
    chunks = chunk_document(doc, max_tokens=60, count_tokens=lambda t: len(t.split()))
    refunds = next(c for c in chunks if c.section == ("Escalation", "Refunds"))
    assert "$5,000" in refunds.text and "8:00-20:00" not in refunds.text
    hours = next(c for c in chunks if c.section == ("Working hours",))
    assert "8:00-20:00" in hours.text


def test_a_lone_section_under_the_title_keeps_its_heading(tmp_path: Path) -> None:
    """docutils lifts a lone section's title to the document subtitle: its heading left the
    text and its chunks named no section."""
    text = "Leave\n=====\n\nSick leave\n----------\n\nCall before 9:00.\n\nNotes\n~~~~~\n\nOk.\n"
    [doc] = load_path(write(tmp_path / "leave.rst", text))
    assert doc.title == "Leave"
    assert "# Leave\n\n## Sick leave\n\nCall before 9:00.\n\n### Notes" in doc.text
    chunks = chunk_document(doc, max_tokens=60, count_tokens=lambda t: len(t.split()))
    assert any(c.section == ("Sick leave",) and "9:00" in c.text for c in chunks)


def test_rst_title_from_the_title_directive_else_the_first_heading_else_the_stem(
    tmp_path: Path,
) -> None:
    both = ".. title:: Refund policy\n\nRefunds\n=======\n\nWithin 30 days.\n"
    assert load_path(write(tmp_path / "a.rst", both))[0].title == "Refund policy"
    # Two top-level sections: no document title, the first heading names it.
    two = "Refunds\n=======\n\nWithin 30 days.\n\nExchanges\n=========\n\nAny time.\n"
    [doc] = load_path(write(tmp_path / "b.rst", two))
    assert doc.title == "Refunds" and "# Refunds" in doc.text and "# Exchanges" in doc.text
    assert load_path(write(tmp_path / "faq.rst", "Just a paragraph.\n"))[0].title == "faq"


def test_sphinx_directives_and_roles_keep_their_text(tmp_path: Path) -> None:
    """docutils drops an unknown directive with its whole body, and leaves an unknown role's
    markup in the sentence; Sphinx pages are full of both."""
    text = """\
Install
=======

Read :ref:`the upgrade notes <upgrading>` and :doc:`/guide/setup` first; ask for an
:term:`API key` and press :kbd:`Ctrl+C` to stop.

.. versionadded:: 2.0
   The installer checks your Python version.

.. tab:: Linux
   :sync: linux

   Run **apt install aster** as root.

   .. deprecated:: 3.1

      The ``--legacy`` flag.

.. code-block:: shell

   aster --start

.. toctree::
   :maxdepth: 2

   upgrading
   setup

.. note:: Restart the service afterwards.
"""
    [doc] = load_path(write(tmp_path / "install.rst", text))
    body = doc.text
    assert "Read the upgrade notes and /guide/setup first; ask for an API key" in body
    assert ":ref:" not in body and "`" not in body.replace("```", "")
    assert "Ctrl+C" in body
    assert "New in version 2.0: The installer checks your Python version." in body
    assert "Linux\n\nRun **apt install aster** as root." in body
    assert "Deprecated since version 3.1.\n\nThe --legacy flag." in body
    assert "```\naster --start\n```" in body
    assert "Restart the service afterwards." in body
    assert "maxdepth" not in body and "upgrading\n" not in body  # the toctree names files


@pytest.mark.parametrize(
    ("raw", "read"),
    [
        (":ref:`the upgrade notes <upgrading>`", "the upgrade notes"),
        (":doc:`/guide/setup`", "/guide/setup"),
        (":py:func:`~aster.start`", "aster.start"),
        (":ref:`<upgrading>`", "<upgrading>"),
        ("*unclosed", "*unclosed"),
    ],
)
def test_role_text(raw: str, read: str) -> None:
    assert role_text(raw) == read


def test_an_rst_file_reads_nothing_but_itself(tmp_path: Path) -> None:
    """include and raw are disabled: an .rst file in a shared folder must not pull another
    file into the index, nor put markup or script into a chunk."""
    secret = write(tmp_path / "secret.txt", "the database password is hunter2\n")
    text = (
        f"Page\n====\n\nBefore.\n\n.. include:: {secret}\n\n.. literalinclude:: {secret}\n\n"
        ".. raw:: html\n\n   <script>alert('x')</script>\n\n"
        f".. csv-table:: Leak\n   :file: {secret}\n\nAfter.\n"
    )
    [doc] = load_path(write(tmp_path / "docs" / "page.rst", text))
    assert "Before." in doc.text and "After." in doc.text
    for leaked in ("hunter2", "script", "alert"):
        assert leaked not in doc.text


def test_a_docutils_config_file_cannot_turn_include_back_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = write(tmp_path / "secret.txt", "hunter2\n")
    write(tmp_path / "docutils.conf", "[general]\nfile_insertion_enabled: yes\nraw_enabled: yes\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCUTILSCONFIG", str(tmp_path / "docutils.conf"))
    [doc] = load_path(write(tmp_path / "p.rst", f"Text.\n\n.. include:: {secret}\n"))
    assert "hunter2" not in doc.text


@pytest.mark.parametrize(
    "text",
    [
        "Title\n===\n\nshort underline, inconsistent\n\nSub\n---\n\nA\n===\n\nB\n~~~\n\nC\n---\n",
        "*unclosed emphasis and `unclosed literal\n\n.. image::\n\n.. figure::\n",
        "| line block\n|\n\n.. [#] footnote with no reference\n\n`dangling`_\n",
        "+----+\n| broken table\n+--\n\nText after.\n",
    ],
)
def test_malformed_rst_gives_its_text_never_an_exception(tmp_path: Path, text: str) -> None:
    [doc] = load_path(write(tmp_path / "bad.rst", text))
    assert doc.text.strip()


def test_an_rst_file_of_only_comments_has_no_text(tmp_path: Path) -> None:
    with pytest.raises(LoaderError, match="no text in the reStructuredText file"):
        load_path(write(tmp_path / "c.rst", ".. a comment\n\n..\n   another\n"))


def test_a_broken_rst_file_costs_only_itself(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "good.rst", HANDBOOK)
    (tmp_path / "docs" / "binary.rst").write_bytes(b"\x00\x01\x02 not text")
    result = load_sources([tmp_path / "docs"])
    assert [d.doc_id for d in result.documents] == ["good.rst"]
    [skipped] = result.skipped
    assert skipped.path.endswith("binary.rst") and "binary file" in skipped.reason


@pytest.mark.model
def test_an_rst_support_page_is_answered_with_its_own_section(project_dir: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    docs = project_dir / "docs"
    write(docs / "support.rst", HANDBOOK)
    with one_document_assistant(project_dir, minilm, docs) as assistant:
        answer = assistant.session().ask("What is the refund limit on the Scale plan?")
        assert "$5,000" in answer.answer
        assert answer.citations[0].doc == "support.rst"
        assert answer.citations[0].title == "Support Handbook"


def test_definitions_keep_their_term_and_notes_their_title(tmp_path: Path) -> None:
    """A definition list came out as two bullets per entry, the term alone and then its
    definition ("- Trash bin", "- Deleted files are kept for 30 days."): quoted, the
    definition said nothing of what it defines. A note box's title was a one-word paragraph
    ("Note"). Both now read as a writer would put them in Markdown."""
    text = """\
Quota
=====

.. note:: Your quota is set by the administrator.

Trash bin
   Deleted files are kept for 30 days.
Versions
   Older versions are kept:

   * hourly for a day
   * daily for a month

.. warning::

   * Files in the trash bin count against your quota.
"""
    [doc] = load_path(write(tmp_path / "quota.rst", text))
    body = doc.text
    assert "Note: Your quota is set by the administrator." in body
    assert "- Trash bin: Deleted files are kept for 30 days." in body
    kept = "- Versions: Older versions are kept:\n  - hourly for a day\n  - daily for a month"
    assert kept in body
    assert "Warning\n\n- Files in the trash bin count against your quota." in body
    assert "\n- Trash bin\n" not in body and "\nNote\n" not in body
