"""Certificates for the TLS tests (ADR 218), made with ``cryptography`` (a test extra):
a test CA the client is told to trust (``SSL_CERT_FILE``), and server certificates that
are good, expired, for another host, or self-signed."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_PEM = serialization.Encoding.PEM


def _name(text: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def _alt_names(hosts: list[str]) -> x509.SubjectAlternativeName:
    names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return x509.SubjectAlternativeName(names)


class TestCA:
    """A CA written to ``folder/ca.pem``; :meth:`server` issues server contexts."""

    __test__ = False  # not a pytest class

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        self.cert = (
            x509.CertificateBuilder().subject_name(_name("Winnow test CA"))
            .issuer_name(_name("Winnow test CA")).public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=60))
            .not_valid_after(now + datetime.timedelta(days=60))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(
                digital_signature=True, key_cert_sign=True, crl_sign=True,
                content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self.key.public_key()),
                           critical=False)
            .sign(self.key, hashes.SHA256()))
        self.pem = folder / "ca.pem"
        self.pem.write_bytes(self.cert.public_bytes(_PEM))

    def server(self, hosts: list[str], *, expired: bool = False,
               self_signed: bool = False) -> ssl.SSLContext:
        """A server context for ``hosts``, signed by this CA (or by its own key)."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        start, end = ((now - datetime.timedelta(days=30), now - datetime.timedelta(days=1))
                      if expired else (now - datetime.timedelta(days=1),
                                       now + datetime.timedelta(days=30)))
        issuer, signer = (_name(hosts[0]), key) if self_signed else (self.cert.subject, self.key)
        cert = (
            x509.CertificateBuilder().subject_name(_name(hosts[0])).issuer_name(issuer)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end)
            .add_extension(_alt_names(hosts), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                           critical=False)
            .sign(signer, hashes.SHA256()))
        stem = self.folder / f"server-{x509.random_serial_number()}"
        cert_path, key_path = stem.with_suffix(".pem"), stem.with_suffix(".key")
        cert_path.write_bytes(cert.public_bytes(_PEM))
        key_path.write_bytes(key.private_bytes(_PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_path, key_path)
        return context
