"""Extraction of one file with the chosen engine, falling back to the other one.

Runs inside pool workers; never raises: every outcome is an Extraction with a status.
"""

from __future__ import annotations

from pathlib import Path

from pdfindex.adapters import adapter_name_for, fallback_for, get_adapter
from pdfindex.adapters.base import ENCRYPTED, FAILED, EncryptedDocument, Extraction


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def extract_file(path: Path, engine: str) -> Extraction:
    """Extract `path` with its adapter (`engine` for PDFs); a PDF one engine cannot read is
    retried with the other."""
    first = adapter_name_for(path, engine) or engine
    second = fallback_for(first)
    errors: list[str] = []
    for name in (first, second) if second else (first,):
        adapter = get_adapter(name)
        try:
            return adapter.extract(path)
        except EncryptedDocument as exc:
            return Extraction(status=ENCRYPTED, error=str(exc), engine=adapter.version)
        except MemoryError:
            return Extraction(
                status=FAILED,
                error="memory: extraction exceeded the memory cap",
                engine=adapter.version,
            )
        except Exception as exc:  # corrupt PDFs raise anything (TypeError, AssertionError, ...)
            errors.append(f"{name}: {_describe(exc)}")
    return Extraction(status=FAILED, error="; ".join(errors), engine=get_adapter(first).version)
