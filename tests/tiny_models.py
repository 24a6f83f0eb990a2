"""Tiny checkpoints of the real architectures with random weights, built by the tests in a temporary folder:
they check loading, label maps, budgets and spans — never quality."""
from __future__ import annotations

from pathlib import Path

WORDS = ("the a an is was were in on of and to it he she they not no river city born year paris london "
         "rome capital france england italy one two three mayor bridge built old new large small").split()


def _tokenizer(folder: Path):
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, *"0123456789.,"])}
    tok = Tokenizer(models.WordPiece(vocab=vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]",
                                   model_input_names=["input_ids", "token_type_ids", "attention_mask"])
    fast.save_pretrained(str(folder))
    return fast, len(vocab)


def build(folder: Path, kind: str, labels: list[str], favour: int, max_positions: int = 128) -> Path:
    """A BERT of two tiny layers whose classifier bias makes label `favour` win by a wide margin."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertForTokenClassification

    folder.mkdir(parents=True, exist_ok=True)
    _, vocab_size = _tokenizer(folder)
    config = BertConfig(vocab_size=vocab_size, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=max_positions, num_labels=len(labels),
                        id2label=dict(enumerate(labels)), label2id={k: i for i, k in enumerate(labels)})
    torch.manual_seed(0)
    model = (BertForTokenClassification if kind == "tokens" else BertForSequenceClassification)(config)
    with torch.no_grad():
        model.classifier.weight.mul_(0.01)
        model.classifier.bias.zero_()
        model.classifier.bias[favour] = 8.0
    model.save_pretrained(str(folder))
    return folder


def export_onnx(folder: Path) -> Path:
    """The same checkpoint as an ONNX graph beside it (what the ONNX Runtime path reads)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(str(folder)).eval()
    tok = AutoTokenizer.from_pretrained(str(folder))
    enc = tok(["the river"], ["the city"], return_tensors="pt")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    torch.onnx.export(model, tuple(enc[n] for n in names), str(folder / "model.onnx"), input_names=names,
                      output_names=["logits"], dynamic_axes={**{n: {0: "batch", 1: "seq"} for n in names},
                                                             "logits": {0: "batch"}}, opset_version=17, dynamo=False)
    return folder / "model.onnx"


SHIPPED_VERIFIER = Path(__file__).resolve().parents[1] / "rt4chart" / "judges" / "model" / "verifier"


def shipped_copy(out: Path) -> Path:
    """A working copy of the shipped verifier in the new folder `out` (its graph linked, its small files copied),
    for a test to break one file of."""
    import shutil

    out.mkdir()
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(SHIPPED_VERIFIER / name, out / name)
    (out / "model_int8.onnx").symlink_to(SHIPPED_VERIFIER / "model_int8.onnx")
    return out
