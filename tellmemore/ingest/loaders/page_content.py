"""What of a web page is its content: the page's own landmarks, not its theme's chrome.

A published documentation site (MkDocs, Sphinx, Docusaurus, Hugo) wraps every page in the
same chrome: the site's page tree in a sidebar, a search box, "Skip to content", the
page's own table of contents, "Previous / Next" links, and a permalink symbol ("¶", "#")
in every heading. Read as text, the page tree alone puts every page's title into every
page's first chunk, and "¶" ends every section name. The HTML standard says where the
content is, and every generator measured says it (bench/results/format_parity.md, "Doc
sites"), so this module reads landmarks and structure, never a theme's class names:

- **the main landmark**: the innermost `<main>` or `role="main"` element, when the page has
  one. Everything outside it is chrome. A page without one is read whole, as before.
- **chrome inside what is read**: navigation, search, banner, footer and dialog roles; a
  `<header>` that is the page's banner (not the header of an article or section); a list
  whose every item is a link to a place in the same page (a table of contents); and in a
  heading, a link to its own anchor that holds no word ("¶", "#", "§").
- **the title**: the main landmark's first `<h1>` ("Clef Core Values"), where `<title>`
  carries the site's name too ("Clef Core Values - Clef Handbook").
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from bs4.element import Tag

_CHROME_ROLES = frozenset({"navigation", "search", "banner", "contentinfo", "dialog"})
_SECTIONING = frozenset({"article", "aside", "main", "nav", "section"})
"""A `<header>` inside one of these heads that part; outside all of them it is the page's
banner (the HTML standard's rule for the banner landmark)."""
_WORD = re.compile(r"\w")


def page_content(soup: BeautifulSoup) -> tuple[Tag, str | None]:
    """The element to read (the main landmark, else the body) with its chrome removed, and
    the title its first `<h1>` gives when the page has a main landmark."""
    body = soup.body if soup.body is not None else soup
    root = _main_landmark(body)
    for node in _chrome(root if root is not None else body):
        node.decompose()
    if root is None:
        return body, None
    h1 = root.find("h1")
    title = " ".join(h1.get_text(" ").split()) if isinstance(h1, Tag) else ""
    return root, title or None


def _is_main(node: Tag) -> bool:
    return node.name == "main" or str(node.get("role") or "").strip() == "main"


def _main_landmark(body: Tag) -> Tag | None:
    """The innermost main landmark: a theme may put its sidebars in `<main>` and the page in
    a `role="main"` element inside it."""
    root = body.find(_is_main)
    while isinstance(root, Tag):
        inner = root.find(_is_main)
        if not isinstance(inner, Tag):
            return root
        root = inner
    return None


def _chrome(root: Tag) -> list[Tag]:
    """The chrome elements under `root`, outermost first (a removed element's descendants
    are not listed again)."""
    found: list[Tag] = []
    ids: set[int] = set()
    for node in root.find_all(True):
        if _is_chrome(node) and not any(id(p) in ids for p in node.parents):
            found.append(node)
            ids.add(id(node))
    return found


def _is_chrome(node: Tag) -> bool:
    role = str(node.get("role") or "").strip()
    if role in _CHROME_ROLES:
        return True
    if node.name == "header":
        return not any(isinstance(p, Tag) and p.name in _SECTIONING for p in node.parents)
    if node.name in ("ul", "ol"):
        return _is_contents(node)
    if node.name == "a" and node.find_parent(re.compile(r"^h[1-6]$")) is not None:
        href = str(node.get("href") or "")
        return href.startswith("#") and not _WORD.search(node.get_text())
    return False


def _is_contents(node: Tag) -> bool:
    """A list whose every item is only a link (with its own sub-list) to a place in the same
    page: the page's table of contents (one item when the page has one section)."""
    items = node.find_all("li", recursive=False)
    if not items:
        return False
    for item in items:
        link = item.find("a", recursive=False) or item.find("a")
        if not isinstance(link, Tag) or not str(link.get("href") or "").startswith("#"):
            return False
        own = " ".join(
            c.get_text(" ") if isinstance(c, Tag) else str(c)
            for c in item.children
            if not (isinstance(c, Tag) and c.name in ("ul", "ol"))
        )
        if " ".join(link.get_text(" ").split()) != " ".join(own.split()):
            return False
    return True
