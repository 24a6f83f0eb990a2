"""Checkpoints a model judge can read, found offline, and run on (premise, claim) pairs.

Three kinds, told apart by the checkpoint's own config:
- `nli`: a sequence classifier whose label map names entailment / neutral / contradiction (DeBERTa or
  RoBERTa MNLI cross-encoders, and rt4chart's shipped verifier, whose labels are entailed / contradicted /
  baseless) -> the three probabilities per pair;
- `support`: a claim checker with two labels, one of which means supported (MiniCheck-style heads,
  HHEM-2.1-open) -> P(supported), with no contradiction;
- `tokens`: a token classifier marking unsupported answer tokens (LettuceDetect-style) -> per-token
  probabilities, turned into spans inside the claim.

Inference runs on ONNX Runtime when the folder holds an ONNX graph (`model.onnx`, `model_int8.onnx` or
`onnx/model.onnx`) and a `tokenizer.json` (needs only `onnxruntime` and `tokenizers`); otherwise through
transformers + torch (`pip install 'rt4chart[models]'`). Nothing is ever downloaded: a name that is not a
folder is looked up in the local Hugging Face cache only. The tokenizer's truncation is never relied on: the
caller splits what is too long (`fits`, `count_tokens`).
"""
from __future__ import annotations

import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from rt4chart.core.errors import JudgeConfigError, MissingDependencyError, first_line
from rt4chart.judges.model.folder import ONNX_NAMES, checked_files

__all__ = ["Checkpoint", "LabelMap", "ONNX_NAMES", "label_map", "locate"]
KINDS = ("nli", "support", "tokens")
_ENTAIL = ("entail", "support", "consistent", "faithful", "factual")
_CONTRA = ("contradict", "refute")
_NEUTRAL = ("neutral", "baseless", "not_enough", "unsupported", "not supported", "hallucinat", "inconsistent")
MODELS_EXTRA = "pip install 'rt4chart[models]'  (transformers and torch)"


def hf_cache_dirs() -> list[Path]:
    """Where a Hugging Face cache may be, in the order the hub library looks (no network)."""
    out = []
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var):
            out.append(Path(os.environ[var]))
    home = Path(os.environ.get("HF_HOME") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") /
                "huggingface")
    out.append(home / "hub")
    return out


def locate(path_or_id: str) -> Path:
    """The folder of a checkpoint: a local path, else `org/name` in the local Hugging Face cache."""
    if not path_or_id.strip():
        raise JudgeConfigError("--model is empty: give a checkpoint folder, or leave --model out for the shipped "
                               "verifier")
    path = Path(path_or_id).expanduser()
    if path.is_dir():
        return path
    if path.suffix == ".onnx" and path.is_file():
        return path.parent
    if "/" in path_or_id and not path_or_id.startswith((".", "/")):
        folder = "models--" + path_or_id.replace("/", "--")
        for cache in hf_cache_dirs():
            snapshots = cache / folder / "snapshots"
            if snapshots.is_dir():
                found = sorted((p for p in snapshots.iterdir() if (p / "config.json").exists()),
                               key=lambda p: p.stat().st_mtime)
                if found:
                    return found[-1]
    raise JudgeConfigError(
        f"model {path_or_id!r} was not found on this machine (looked for a folder, then in the Hugging Face cache "
        f"{', '.join(str(c) for c in hf_cache_dirs())}); rt4chart never downloads models. Copy the checkpoint "
        "folder here (e.g. `huggingface-cli download ORG/NAME --local-dir DIR` on a machine with network) and "
        "pass --model DIR")


_NEGATED = ("not", "un", "in", "non", "no")


def _negated(label: str) -> bool:
    """'not supported', 'NOT_ENTAILMENT', 'unsupported', 'inconsistent', 'non-factual'."""
    low = label.lower().replace("-", "_").replace(" ", "_")
    return any(low.startswith(p + "_") or (p in ("un", "in", "non") and low.startswith(p)) for p in _NEGATED)


def _has(labels: Sequence[str], words: Sequence[str], negated: Optional[bool] = None) -> Optional[int]:
    """The first label that names one of `words` (and is, or is not, negated when asked)."""
    for i, label in enumerate(labels):
        low = label.lower().replace("-", "_")
        if any(w in low or w in label.lower() for w in words) and (negated is None or _negated(label) == negated):
            return i
    return None


@dataclass(frozen=True)
class LabelMap:
    """Which output means what. `entail`/`contra`/`neutral` index the logits (None where absent)."""

    kind: str
    labels: tuple[str, ...]
    entail: Optional[int] = None
    contra: Optional[int] = None
    neutral: Optional[int] = None
    unsupported: Optional[int] = None   # tokens kind: the label of a hallucinated token


def label_map(config: dict) -> LabelMap:
    """Read the kind and label meanings from a checkpoint's `config.json`."""
    id2label = config.get("id2label") or {}
    labels = tuple(str(id2label.get(str(i), id2label.get(i, f"LABEL_{i}"))) for i in range(len(id2label) or
                                                                                           config.get("num_labels", 2)))
    arch = " ".join(config.get("architectures") or [])
    if "TokenClassification" in arch:
        bad = _has(labels, ("hallucinat", "unsupported", "not_supported"))
        return LabelMap("tokens", labels, unsupported=bad if bad is not None else len(labels) - 1)
    contra = _has(labels, _CONTRA)
    if contra is not None or len(labels) == 3:
        entail = _has(labels, _ENTAIL, negated=False)
        neutral = _has(labels, _NEUTRAL) if _has(labels, _NEUTRAL, negated=False) is None else _has(
            labels, _NEUTRAL, negated=False)
        if None in (entail, contra, neutral) or len({entail, contra, neutral}) != 3:
            raise JudgeConfigError(f"the checkpoint's labels {list(labels)} do not name entailment, neutral and "
                                   "contradiction; give a checkpoint whose config.json id2label does")
        return LabelMap("nli", labels, entail=entail, contra=contra, neutral=neutral)
    if "HHEM" in arch or config.get("model_type") == "HHEMv2Config":
        return LabelMap("support", ("hallucinated", "consistent"), entail=1)
    if len(labels) == 2:
        entail = _has(labels, _ENTAIL, negated=False)
        return LabelMap("support", labels, entail=entail if entail is not None else 1)
    if len(labels) == 1:  # a single logit: sigmoid = P(supported)
        return LabelMap("support", labels, entail=0)
    raise JudgeConfigError(f"cannot tell what the {len(labels)} labels {list(labels)} of this checkpoint mean")


def _softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


class _OnnxBackend:
    def __init__(self, onnx_path: Path, folder: Path, threads: int):
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise MissingDependencyError(f"ONNX checkpoints need onnxruntime and tokenizers ({exc.name} is "
                                         "missing): pip install onnxruntime tokenizers") from None
        # One single-threaded session per thread, each reading its own pairs: a pair read alone keeps two threads
        # of one session mostly waiting (1.2-1.4x one thread's pace on 2 cores), two sessions side by side ~2x.
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        try:
            self.sessions = [ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
                             for _ in range(max(1, threads))]
        except Exception as exc:  # onnxruntime raises its own kinds for a truncated, corrupt or foreign file
            raise JudgeConfigError(f"{onnx_path}: not a readable ONNX graph ({type(exc).__name__}: "
                                   f"{first_line(exc)}); export it again") from None
        self.session = self.sessions[0]
        self.lanes = len(self.sessions)
        self.inputs = {i.name for i in self.session.get_inputs()}
        shape = self.session.get_outputs()[0].shape
        self.width = shape[-1] if shape and isinstance(shape[-1], int) else None
        try:
            self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as exc:  # tokenizers raises a bare Exception for a file that is not its JSON
            raise JudgeConfigError(f"{folder / 'tokenizer.json'}: not a tokenizer file the tokenizers library "
                                   f"reads ({first_line(exc)})") from None
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.pad_id = self.tokenizer.token_to_id("[PAD]") or self.tokenizer.token_to_id("<pad>") or 0

    def count(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def encode(self, premises: Sequence[str], hypotheses: Sequence[str]):
        return self.tokenizer.encode_batch(list(zip(premises, hypotheses)))

    def run(self, encodings, lane: int = 0) -> np.ndarray:
        """The graph's outputs for `encodings`, read by the session of `lane` (one caller per lane at a time)."""
        width = max(len(e.ids) for e in encodings)
        feed = {}
        ids = np.full((len(encodings), width), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        types = np.zeros((len(encodings), width), dtype=np.int64)
        for row, e in enumerate(encodings):
            ids[row, :len(e.ids)] = e.ids
            mask[row, :len(e.ids)] = 1
            types[row, :len(e.ids)] = e.type_ids
        feed["input_ids"], feed["attention_mask"] = ids, mask
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = types
        return self.sessions[lane].run(None, feed)[0]


def _pickled_only(folder: Path) -> bool:
    return (folder / "pytorch_model.bin").exists() and not any(folder.glob("*.safetensors"))


def _version(text: str) -> tuple[int, int]:
    """(major, minor) of a version string such as '2.13.0+cpu' (packaging comes with transformers)."""
    from packaging.version import Version

    release = Version(text).release + (0, 0)
    return release[0], release[1]


def torch_device() -> str:
    """Where a checkpoint without an ONNX graph runs: `RT4CHART_TORCH_DEVICE` (e.g. `cuda`, `cuda:1`), else the
    CPU. Asked for and absent is a one-line refusal, never a silent fall-back to the CPU."""
    import torch

    name = os.environ.get("RT4CHART_TORCH_DEVICE", "").strip() or "cpu"
    try:
        device = torch.device(name)
    except (RuntimeError, ValueError):
        raise JudgeConfigError(f"RT4CHART_TORCH_DEVICE={name!r} is not a torch device (cpu, cuda, cuda:1, ...)") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise JudgeConfigError(f"RT4CHART_TORCH_DEVICE={name!r} but torch sees no CUDA device here; unset it to read "
                               "on the CPU")
    return name


class _TorchBackend:
    def __init__(self, folder: Path, kind: str, threads: int):
        try:
            import torch
            import transformers
        except ImportError:
            raise MissingDependencyError(f"this checkpoint has no ONNX graph, so it runs through transformers: "
                                         f"{MODELS_EXTRA}") from None
        if _pickled_only(folder) and _version(torch.__version__) < (2, 6):
            raise JudgeConfigError(f"{folder}: its weights are a pickled pytorch_model.bin and torch "
                                   f"{torch.__version__} would unpickle it (code could run); install torch>=2.6, "
                                   "which reads weights only, or give the checkpoint as model.safetensors")
        torch.set_num_threads(threads)
        self.torch = torch
        self.device = torch_device()
        auto = (transformers.AutoModelForTokenClassification if kind == "tokens"
                else transformers.AutoModelForSequenceClassification)
        try:
            self.model = auto.from_pretrained(str(folder), trust_remote_code=False).eval().float().to(self.device)
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder))
        except Exception as exc:  # torch and transformers raise many kinds for weights they cannot read
            raise JudgeConfigError(f"{folder}: transformers cannot load this checkpoint ({first_line(exc)})") from None

    def count(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def encode(self, premises: Sequence[str], hypotheses: Sequence[str]):
        return self.tokenizer(list(premises), list(hypotheses), return_offsets_mapping=self.tokenizer.is_fast)

    def run(self, encodings, lane: int = 0) -> np.ndarray:
        """The graph's outputs for `encodings`, read by the session of `lane` (one caller per lane at a time)."""
        batch = {k: v for k, v in encodings.items() if k != "offset_mapping"}
        padded = self.tokenizer.pad(batch, return_tensors="pt").to(self.device)
        with self.torch.no_grad():
            return self.model(**padded).logits.float().cpu().numpy()


class Checkpoint:
    """A loaded checkpoint: its kind and labels, its token budget, and batched probabilities."""

    def __init__(self, path_or_id: str, threads: int = 0, batch_size: int = 32):
        self.folder = locate(path_or_id)
        self.name = path_or_id
        files = checked_files(self.folder)
        self.config = files.config
        self.labels = label_map(self.config)
        self.kind = self.labels.kind
        self.max_length = int(self.config.get("rt4chart_max_length") or min(
            int(self.config.get("max_position_embeddings") or 512), 512))
        threads = threads or max(1, min(4, os.cpu_count() or 1))
        onnx = files.graph
        self.backend: Any = (_OnnxBackend(onnx, self.folder, threads) if onnx is not None
                             else _TorchBackend(self.folder, self.kind, threads))
        width = getattr(self.backend, "width", None)
        if width is not None and width != len(self.labels.labels):
            raise JudgeConfigError(
                f"{self.folder}: the graph gives {width} outputs but config.json names {len(self.labels.labels)} "
                f"labels ({', '.join(self.labels.labels)}); its id2label must name every output, or the outputs "
                "would be read as other labels")
        self.runtime = "onnxruntime" if isinstance(self.backend, _OnnxBackend) else "transformers"
        # An int8 graph quantizes its activations per run, over the whole batch, padding included: a pair read
        # beside others got other probabilities (up to 0.11 apart on the shipped verifier). So an ONNX graph
        # reads each pair alone, which is also faster on CPU (no padding); a pair's probabilities then depend
        # on the pair only, whatever else is audited with it or cached before it.
        self.batch_size = 1 if self.runtime == "onnxruntime" else batch_size
        self.digest = self._digest(onnx)
        self._lock = threading.Lock()
        self._pool: Optional[ThreadPoolExecutor] = None

    def _digest(self, onnx: Optional[Path]) -> str:
        h = hashlib.sha256((self.folder / "config.json").read_bytes())
        weights = onnx or next((self.folder / n for n in ("model.safetensors", "pytorch_model.bin")
                                if (self.folder / n).exists()), None)
        if weights is not None:
            stat = weights.stat()
            h.update(f"{weights.name}:{stat.st_size}".encode())
            with open(weights, "rb") as fh:
                h.update(fh.read(1 << 20))
        return h.hexdigest()[:16]

    # budget -------------------------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        return self.backend.count(text)

    def fits(self, premise_tokens: int, claim_tokens: int) -> bool:
        """A pair fits when both texts and the special tokens stay within the model's maximum length."""
        return premise_tokens + claim_tokens + 4 <= self.max_length

    # inference ----------------------------------------------------------------------------------------
    def logits(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        order = sorted(range(len(premises)), key=lambda i: len(premises[i]) + len(hypotheses[i]))
        out: list[Optional[np.ndarray]] = [None] * len(premises)
        with self._lock:  # one caller at a time (sessions are thread-safe; padding buffers and lanes are not)
            lanes = getattr(self.backend, "lanes", 1)
            if self.batch_size == 1 and lanes > 1 and len(order) > 1:
                def read(lane: int) -> None:  # the pairs sorted by length, dealt in turn: the lanes end together
                    for i in order[lane::lanes]:
                        out[i] = self.backend.run(self.backend.encode([premises[i]], [hypotheses[i]]), lane)[0]
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max_workers=lanes, thread_name_prefix="rt4chart-onnx")
                list(self._pool.map(read, range(lanes)))
                return np.stack(out)  # type: ignore[arg-type]
            for start in range(0, len(order), self.batch_size):
                chunk = order[start:start + self.batch_size]
                enc = self.backend.encode([premises[i] for i in chunk], [hypotheses[i] for i in chunk])
                for i, row in zip(chunk, self.backend.run(enc)):
                    out[i] = row
        return np.stack(out) if out else np.zeros((0, len(self.labels.labels)))  # type: ignore[arg-type]

    def pair_probs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[tuple[float, float, float]]:
        """(P entailed, P contradicted, P baseless) per pair; a `support` checkpoint has no contradiction."""
        if self.kind == "tokens":
            raise JudgeConfigError("a token classifier marks tokens; use token_probs")
        if not premises:
            return []
        logits = self.logits(premises, hypotheses)
        lm = self.labels
        if logits.shape[-1] == 1:
            support = 1.0 / (1.0 + np.exp(-logits[:, 0]))
            return [(float(s), 0.0, float(1 - s)) for s in support]
        p = _softmax(logits)
        if lm.kind == "nli":
            return [(float(r[lm.entail]), float(r[lm.contra]), float(r[lm.neutral])) for r in p]
        return [(float(r[lm.entail]), 0.0, float(1 - r[lm.entail])) for r in p]

    def token_spans(self, premise: str, claim: str, threshold: float = 0.5) -> tuple[list[tuple[int, int]], float]:
        """Character spans of `claim` whose tokens the classifier marks unsupported, and the highest
        probability of any claim token being unsupported."""
        enc = self.backend.encode([premise], [claim])
        logits = self.backend.run(enc)[0]
        p = _softmax(logits)[:, self.labels.unsupported]
        if isinstance(self.backend, _OnnxBackend):
            e = enc[0]
            seq, offsets = e.sequence_ids, e.offsets
        else:
            seq, offsets = enc.sequence_ids(0), enc["offset_mapping"][0]
        spans: list[tuple[int, int]] = []
        worst = 0.0
        for i, (sid, (start, end)) in enumerate(zip(seq, offsets)):
            if sid != 1 or end <= start:
                continue
            worst = max(worst, float(p[i]))
            if p[i] >= threshold:
                if spans and start - spans[-1][1] <= 1:
                    spans[-1] = (spans[-1][0], end)
                else:
                    spans.append((start, end))
        return spans, worst
