"""The pairwise protocol's key (the Study.protocol value) and the three answers to a pair."""

PAIRWISE = "pairwise"

LEFT = "left"  # output A, shown on the left, is better
RIGHT = "right"  # output B, shown on the right, is better
TIE = "tie"  # about the same (only when the study allows ties)
CHOICES = (LEFT, RIGHT, TIE)
