"""TLS material for a test broker: a CA, a server certificate it signed, and a CA that signed
nothing, made with Debian's openssl in a directory (reused when already there)."""
import os
import subprocess


class TLSMaterial:
    """A CA and a server certificate it signed (CN 127.0.0.1, SAN IP:127.0.0.1 and DNS:localhost),
    and a second CA that signed nothing ("wrong"), all made with openssl in `directory`."""

    def __init__(self, directory):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        p = lambda n: os.path.join(directory, n)
        self.ca, self.ca_key = p("ca.crt"), p("ca.key")
        self.wrong_ca, self.wrong_ca_key = p("wrong-ca.crt"), p("wrong-ca.key")
        self.cert, self.key = p("server.crt"), p("server.key")
        if all(os.path.exists(f) for f in (self.ca, self.wrong_ca, self.cert, self.key)):
            return
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        ca_ext = ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]
        self._openssl(["req", "-x509", *ec, "-keyout", self.ca_key, "-out", self.ca, "-days", "3",
                       "-subj", "/CN=Islet test CA", *ca_ext])
        self._openssl(["req", "-x509", *ec, "-keyout", self.wrong_ca_key, "-out", self.wrong_ca, "-days", "3",
                       "-subj", "/CN=Islet test CA", *ca_ext])   # same name, another key: only the signature tells
        csr, ext = p("server.csr"), p("server.ext")
        with open(ext, "w") as f:
            f.write("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                    "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n")
        self._openssl(["req", *ec, "-keyout", self.key, "-out", csr, "-subj", "/CN=127.0.0.1"])
        self._openssl(["x509", "-req", "-in", csr, "-CA", self.ca, "-CAkey", self.ca_key, "-CAcreateserial",
                       "-out", self.cert, "-days", "3", "-extfile", ext])

    @staticmethod
    def _openssl(args):
        r = subprocess.run(["openssl", *args], capture_output=True)
        if r.returncode != 0:
            raise RuntimeError(f"openssl {' '.join(args[:2])} failed: {r.stderr.decode(errors='replace')[-800:]}")

