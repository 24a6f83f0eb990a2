"""Carry a model folder to a lent GPU machine whose transfers are capped per call, and put it together there.

`split`: the folder's weights as bfloat16 safetensors (half the bytes; a GPU run trains under bf16 autocast from
fp32 weights made from them), cut into parts of at most `--part-mb`, each part in its own folder with the small
files in the first; a manifest records every part's and the whole file's sha256. `join`: the parts, gathered in
one folder, checked and put together as a model folder that transformers loads.

    python training/device_stage.py split training/work/mpnet .gpu/mpnet --part-mb 55
    python training/device_stage.py join /root/stage/mpnet /root/mpnet        # on the GPU machine
    python training/device_stage.py bf16 RUN/final OUT    # a trained model's folder, weights in bfloat16 (to carry back)
    python training/device_stage.py fp32 OUT RUN/final    # and back to float32 (what export.py reads)
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
from pathlib import Path

MANIFEST = "stage-manifest.json"
WEIGHTS = "model.safetensors"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def split(model: Path, out: Path, part_mb: float) -> None:
    import torch
    from safetensors.torch import load_file, save

    tensors = {k: (v.to(torch.bfloat16) if v.is_floating_point() else v) for k, v in load_file(model / WEIGHTS).items()}
    blob = save(tensors)
    size = int(part_mb * 1_000_000)
    parts = [blob[i:i + size] for i in range(0, len(blob), size)]
    manifest = {"weights_sha256": sha256(blob), "bytes": len(blob), "source": str(model),
                "parts": [{"name": f"{WEIGHTS}.{k:03d}", "sha256": sha256(p)} for k, p in enumerate(parts)],
                "files": sorted(f.name for f in model.iterdir() if f.is_file() and f.name != WEIGHTS
                                and not f.name.startswith(".") and f.stat().st_size < 2_000_000)}
    for k, part in enumerate(parts):
        folder = out / f"part{k}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{WEIGHTS}.{k:03d}").write_bytes(part)
        if k == 0:
            for name in manifest["files"]:
                shutil.copy2(model / name, folder / name)
            (folder / MANIFEST).write_text(json.dumps(manifest, indent=2))
    print(f"{len(blob):,} bytes in {len(parts)} parts -> {out}/part0..{len(parts) - 1}")


def join(stage: Path, out: Path) -> None:
    manifest = json.loads((stage / MANIFEST).read_text())
    chunks = []
    for part in manifest["parts"]:
        data = (stage / part["name"]).read_bytes()
        if sha256(data) != part["sha256"]:
            raise SystemExit(f"{part['name']}: sha256 differs from the manifest (a part was cut short)")
        chunks.append(data)
    blob = b"".join(chunks)
    if sha256(blob) != manifest["weights_sha256"]:
        raise SystemExit("the joined weights' sha256 differs from the manifest")
    out.mkdir(parents=True, exist_ok=True)
    (out / WEIGHTS).write_bytes(blob)
    for name in manifest["files"]:
        shutil.copy2(stage / name, out / name)
    print(f"{len(blob):,} bytes joined -> {out}")


def cast(src: Path, dst: Path, dtype: str) -> None:
    """A copy of the model folder `src` with its floating-point weights in `dtype` (bfloat16 or float32)."""
    import torch
    from safetensors.torch import load_file, save_file

    to = {"bf16": torch.bfloat16, "fp32": torch.float32}[dtype]
    shutil.copytree(src, dst, dirs_exist_ok=True)
    weights = load_file(src / WEIGHTS)
    save_file({k: v.to(to) if v.is_floating_point() else v for k, v in weights.items()}, dst / WEIGHTS,
              metadata={"format": "pt"})
    print(f"{src} -> {dst} ({dtype})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    s = sub.add_parser("split")
    s.add_argument("model", type=Path)
    s.add_argument("out", type=Path)
    s.add_argument("--part-mb", type=float, default=55)
    j = sub.add_parser("join")
    j.add_argument("stage", type=Path)
    j.add_argument("out", type=Path)
    for verb in ("bf16", "fp32"):
        c = sub.add_parser(verb)
        c.add_argument("src", type=Path)
        c.add_argument("dst", type=Path)
    args = parser.parse_args()
    if args.verb == "split":
        split(args.model, args.out, args.part_mb)
    elif args.verb == "join":
        join(args.stage, args.out)
    else:
        cast(args.src, args.dst, args.verb)


if __name__ == "__main__":
    main()
