"""Which adapter reads a file, under which version, and whether an indexed file should be
read again because its reader changed (another adapter, another custom command, or a new
version of the same adapter: an extractor whose fixes would otherwise only reach files
whose bytes change)."""

from __future__ import annotations

from pdfindex.config import Settings
from pdfindex.extract.adapters import (
    adapter_name_for,
    custom_for,
    fallback_for,
    get_adapter,
    supported_extensions,
)
from pdfindex.models import FileRecord, FileStatus
from pdfindex.names import unsupported


class Readers:
    """The settings' readers, their versions asked once per process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._versions: dict[str, str] = {}
        self._reads: tuple[str, ...] | None = None  # the extensions read (settings')

    def reason_not_read(self, path: str) -> str | None:
        """Why no adapter reads `path` ("x.xyz is a .xyz file; pdfindex reads: ..."), or
        None when one does."""
        s = self.settings
        if adapter_name_for(path, s.extractor, s.custom_adapters) is not None:
            return None
        if self._reads is None:  # what is read: the same for every file
            self._reads = supported_extensions(s.custom_adapters)
        return unsupported(path, self._reads)

    def changed(self, record: FileRecord) -> bool:
        """The file is read by another reader than when it was indexed: it was of a type
        not read then, a custom adapter now reads it with another command (or no longer
        does), or its adapter (or the other PDF engine, which read it when the first
        could not) is now at another version."""
        if record.status == FileStatus.UNSUPPORTED:
            return True
        custom = custom_for(record.path, self.settings.custom_adapters)
        if custom is not None:
            return record.extractor != custom.version
        if record.extractor.startswith("custom-"):
            return True
        return self.outdated(record.path, record.extractor)

    def outdated(self, path: str, extractor: str) -> bool:
        """`extractor` names an earlier (or later) version of an adapter that reads
        `path` today. A failure the pool reported names the engine only (`pdfium`), of no
        adapter's family: that file is not read again at every scan."""
        name = self._adapter(path)
        family = extractor.partition("-")[0]
        for reader in (name, fallback_for(name)):
            current = self._version(reader) if reader else ""
            if current == extractor:
                return False
            if current.partition("-")[0] == family:
                return True
        return False

    def version_for(self, path: str) -> str:
        """The cache key part naming the adapter that reads `path`, with its version."""
        custom = custom_for(path, self.settings.custom_adapters)
        if custom is not None:
            return custom.version  # its command and args: another command reads again
        return self._version(self._adapter(path))

    def _adapter(self, path: str) -> str:
        return adapter_name_for(path, self.settings.extractor) or self.settings.extractor

    def _version(self, name: str) -> str:
        if name not in self._versions:
            self._versions[name] = get_adapter(name).version
        return self._versions[name]
