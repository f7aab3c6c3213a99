"""Helpers for the modules that start a Karst of their own (a listener with TLS or SASL needs its
own broker): certificates made with openssl, a free loopback port, and the broker process."""
import os
import socket
import subprocess
import time
from contextlib import contextmanager

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


def make_ca(d, name):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", os.path.join(d, "ca.key"), "-out", os.path.join(d, "ca.pem"), "-days", "2",
            "-subj", f"/CN={name}")
    return os.path.join(d, "ca.pem")


def signed(d, name, subject, ext=None):
    key, csr, crt = (os.path.join(d, f"{name}.{x}") for x in ("key", "csr", "pem"))
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
            "-out", csr, "-subj", subject)
    extra = []
    if ext:
        path = os.path.join(d, f"{name}.ext")
        with open(path, "w") as f:
            f.write(ext + "\n")
        extra = ["-extfile", path]
    openssl("x509", "-req", "-in", csr, "-CA", os.path.join(d, "ca.pem"), "-CAkey", os.path.join(d, "ca.key"),
            "-CAcreateserial", "-out", crt, "-days", "2", *extra)
    return key, crt


def pem_keystore(d, key, crt):
    """A PEM key store (ssl.keystore.type=PEM): the private key followed by its certificate."""
    keystore = os.path.join(d, "keystore.pem")
    with open(keystore, "w") as out:
        for part in (key, crt):
            with open(part) as f:
                out.write(f.read())
    return keystore


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def karst(d, properties, port):
    """Runs Karst (KARST_BIN, else built from ./cmd/karst) on server.properties text until the
    block ends; returns once port accepts connections."""
    binary = os.environ.get("KARST_BIN")
    if not binary:
        binary = os.path.join(d, "karst")
        subprocess.run(["go", "build", "-o", binary, "./cmd/karst"], cwd=ROOT, check=True, timeout=600)
    props = os.path.join(d, "server.properties")
    with open(props, "w") as f:
        f.write(f"log.dirs={d}/data\n" + properties)
    log = open(os.path.join(d, "karst.log"), "w")
    proc = subprocess.Popen([binary, "serve", props], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("karst did not start; see " + log.name)
                time.sleep(0.2)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
