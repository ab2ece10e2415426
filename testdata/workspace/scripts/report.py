"""Sales report over exported carts."""

import json


def load_carts(path):
    """Read carts exported as JSON lines."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def total_revenue(carts):
    """Sum the totals of all carts, in cents."""
    return sum(c["total"] for c in carts)


class Report:
    """A printable sales report."""

    def __init__(self, carts):
        self.carts = carts

    def render(self):
        return f"{len(self.carts)} carts, {total_revenue(self.carts)} cents"
