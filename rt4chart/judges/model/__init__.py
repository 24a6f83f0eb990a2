"""Model judges: checkpoints read offline (NLI, claim checkers, token classifiers) inside the RT4CHART steps."""
