"""Plain text files: read like Markdown (front matter optional, a `# ` line is a heading).

Plain text usually has no headings; it then chunks by paragraphs under the
document title, which is the file stem unless front matter names one.
"""

from __future__ import annotations

from typing import ClassVar

from tellmemore.ingest.loaders.base import LoadResult, Source
from tellmemore.ingest.loaders.markdown import document_from_text


class TextLoader:
    format: ClassVar[str] = "text"
    extensions: ClassVar[tuple[str, ...]] = (".txt", ".text")
    binary: ClassVar[bool] = False
    streaming: ClassVar[bool] = False

    def load(self, source: Source) -> LoadResult:
        return LoadResult((document_from_text(source, format=self.format),))


LOADER = TextLoader()
