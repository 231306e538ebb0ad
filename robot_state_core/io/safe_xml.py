"""Hardened XML parsing for robot descriptions.

Robot descriptions arrive from files, parameters and the network (``robot_description``), so
they are untrusted input. This module is the single place that turns bytes into an lxml tree:

* DTDs are refused outright: a URDF or SRDF never needs one, and refusing it closes the
  billion-laughs (entity expansion) and XXE (external entity, file or network read) attacks
  before any parser sees them.
* The lxml parser itself runs with entity resolution, DTD loading and network access off
  (defence in depth), keeps line numbers, and does not allow huge trees.
* Whitespace before the XML declaration is accepted, as tinyxml2 (urdfdom, srdfdom) accepts it:
  MoveIt's own test fixtures are C++ raw strings that start with a newline before ``<?xml``.
  The declaration is moved to the front; line numbers are unchanged.
* Any ``version`` in the XML declaration is accepted, as tinyxml2 accepts it (it does not read
  the declaration): libxml2 refuses versions other than ``1.x`` ("Unsupported version '0.0'",
  pybullet_data's ``minitaur.urdf``), so such a version is read as ``1.0``.
* Every scan is linear in the document (no regex that can backtrack over it).
"""

from __future__ import annotations

import codecs
import re

from lxml import etree

from robot_state_core.errors import InvalidTypeError, RobotDescriptionError, XmlSecurityError

_XML_DECLARATION = re.compile(r'^\s*<\?xml[^>]*\?>')
#: Encodings that are not ASCII-compatible, recognized by BOM or by the first bytes of '<?'.
_WIDE_ENCODINGS = (
    (codecs.BOM_UTF32_LE, 'utf-32'), (codecs.BOM_UTF32_BE, 'utf-32'),
    (codecs.BOM_UTF16_LE, 'utf-16'), (codecs.BOM_UTF16_BE, 'utf-16'),
    (b'<\x00\x00\x00', 'utf-32-le'), (b'\x00\x00\x00<', 'utf-32-be'),
    (b'<\x00?\x00', 'utf-16-le'), (b'\x00<\x00?', 'utf-16-be'),
    (b'<\x00', 'utf-16-le'), (b'\x00<', 'utf-16-be'),
)
_DTD_PATTERN = re.compile(rb'<!\s*(DOCTYPE|ENTITY|ELEMENT|ATTLIST)', re.IGNORECASE)
#: Whitespace, then an XML declaration (which XML allows only at the very start).
_LATE_DECLARATION = re.compile(rb'(\s+)(<\?xml\s[^>]*\?>)')

#: The declaration's version (after an optional UTF-8 BOM), e.g. ``<?xml version="0.0"``.
_DECLARED_VERSION = re.compile(rb'(\xef\xbb\xbf)?<\?xml\s+version\s*=\s*(["\'])([^"\'>]{0,64})\2')
#: Versions libxml2 reads (XML 1.x).
_XML_1 = re.compile(rb'1\.[0-9]+')

#: Largest description accepted [bytes]. Talos' URDF is ~100 kB; this leaves ample room.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           dtd_validation=False, huge_tree=False, remove_comments=True,
                           remove_pis=True)


def parse_xml(document: str | bytes, *, source: str = '<string>') -> etree._Element:
    """Parse an XML document with every dangerous feature off.

    Args:
        document: The XML text (``str``) or bytes.
        source: A name for the document used in error messages (a path or ``'<string>'``).

    Returns:
        The root element; ``element.sourceline`` gives 1-based line numbers.

    Raises:
        InvalidTypeError: ``document`` is neither str nor bytes.
        XmlSecurityError: The document declares a DTD, entities or is larger than
            :data:`MAX_DOCUMENT_BYTES`. Nothing is expanded and no file or URL is read.
        RobotDescriptionError: The document is empty or not well-formed XML.
    """
    if not isinstance(document, str | bytes | bytearray | memoryview):
        raise InvalidTypeError(f'{source}: an XML document must be str or bytes, got '
                               f'{type(document).__name__}')
    data = document.encode('utf-8') if isinstance(document, str) else _to_utf8(bytes(document),
                                                                               source)
    if len(data) > MAX_DOCUMENT_BYTES:
        raise XmlSecurityError(f'{source}: document of {len(data)} bytes exceeds the '
                               f'{MAX_DOCUMENT_BYTES}-byte limit')
    if not data.strip():
        raise RobotDescriptionError(f'{source}: the document is empty')
    match = _DTD_PATTERN.search(data)
    if match:
        line = data.count(b'\n', 0, match.start()) + 1
        raise XmlSecurityError(
            f'{source}: line {line}: XML declarations <!{match.group(1).decode().upper()} ...> '
            'are not accepted in robot descriptions (DTDs and entities are refused to prevent '
            'entity-expansion and external-entity attacks)')
    late = _LATE_DECLARATION.match(data)
    if late:  # tinyxml2 skips leading whitespace; keep the newlines so line numbers hold
        data = late.group(2) + late.group(1) + data[late.end():]
    version = _DECLARED_VERSION.match(data)
    if version and not _XML_1.fullmatch(version.group(3)):  # tinyxml2 ignores the version
        data = data[:version.start(3)] + b'1.0' + data[version.end(3):]
    try:
        root = etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise RobotDescriptionError(f'{source}: not well-formed XML: {exc}') from exc
    if root is None:
        raise RobotDescriptionError(f'{source}: the document has no root element')
    if root.getroottree().docinfo.internalDTD is not None:  # defence in depth
        raise XmlSecurityError(f'{source}: DTDs are not accepted in robot descriptions')
    return root


def _to_utf8(data: bytes, source: str) -> bytes:
    """Re-encode UTF-16/32 documents as UTF-8 so the DTD scan sees every character."""
    for prefix, encoding in _WIDE_ENCODINGS:
        if data.startswith(prefix):
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError as exc:
                raise RobotDescriptionError(f'{source}: cannot decode as {encoding}: {exc}'
                                            ) from exc
            return _XML_DECLARATION.sub('', text.lstrip('\ufeff'), count=1).encode('utf-8')
    return data
