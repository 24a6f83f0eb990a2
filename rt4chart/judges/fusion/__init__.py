"""The learned fusion: one small calibrated claim classifier over every signal of the offline checks and the
model's readings (`signals`), applied from a JSON file that benchmarks/fit_fusion.py writes (`learned`).
None ships: over the shipped verifier's readings it measured below the word check alone on RAGTruth and
FaithBench (docs/benchmarks.md, "Every signal at the claim level"); it is the room where a stronger
reader's readings are fused when one lands."""
