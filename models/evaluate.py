"""Scoring a card detector against hand-checked boxes (``labels.json`` of ``shared/data/real_cards``).

The rule (detector issue): a label is *found* when a detection of the same card has its centre inside the
labelled box; each label and each detection is used once. Card-level recall and precision follow from that.
Beyond them, a detector that finds the card but misreads it is told apart from one that misses the card:
a label is *located* when any card detection's centre lies inside its box, and rank-only and suit-only
accuracy are measured over the located labels, with the confusions listed. Pure: dicts in, a report out.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.cards import is_card, rank, suit

Box = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class Label:
    card: str
    box: Box


@dataclass(frozen=True, slots=True)
class Detection:
    card: str
    box: Box
    conf: float = 1.0

    @property
    def centre(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return (x1 + x2) / 2, (y1 + y2) / 2


def _inside(point: tuple[float, float], box: Box) -> bool:
    x, y = point
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def load_labels(folder: str | Path) -> dict[str, list[Label]]:
    """``FOLDER/labels.json`` as ``{image: [Label]}``; entries whose ``card`` is not a card are refused."""
    path = Path(folder) / "labels.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: no labels.json in {folder}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON ({e.msg} at line {e.lineno})") from None
    out: dict[str, list[Label]] = {}
    for image, items in raw.items():
        labels = []
        for i, item in enumerate(items):
            card, box = item.get("card"), item.get("box")
            if not is_card(card) or not (isinstance(box, list) and len(box) == 4):
                raise ValueError(f"{path}: {image} entry {i}: needs a card code and a box [x1, y1, x2, y2]")
            labels.append(Label(card, tuple(float(v) for v in box)))  # type: ignore[arg-type]
        out[image] = labels
    return out


@dataclass
class Report:
    """Counts and rates of one evaluation; ``to_dict`` is the ``--json`` output."""

    images: int = 0
    labels: int = 0
    detections: int = 0
    found: int = 0
    located: int = 0
    rank_right: int = 0
    suit_right: int = 0
    per_class: dict[str, list[int]] = field(default_factory=dict)  # card -> [labels, found]
    confusions: Counter[tuple[str, str]] = field(default_factory=Counter)

    @property
    def recall(self) -> float:
        return self.found / self.labels if self.labels else 0.0

    @property
    def precision(self) -> float:
        return self.found / self.detections if self.detections else 0.0

    @property
    def rank_accuracy(self) -> float:
        return self.rank_right / self.located if self.located else 0.0

    @property
    def suit_accuracy(self) -> float:
        return self.suit_right / self.located if self.located else 0.0

    def worst_classes(self, n: int = 5) -> list[tuple[str, float, int]]:
        """(card, recall, labels) of the ``n`` cards found least often (ties: more labels first)."""
        rows = [(c, f / n_ if n_ else 0.0, n_) for c, (n_, f) in self.per_class.items()]
        return sorted(rows, key=lambda r: (r[1], -r[2], r[0]))[:n]

    def to_dict(self) -> dict[str, Any]:
        return {
            "images": self.images, "labels": self.labels, "detections": self.detections, "found": self.found,
            "recall": round(self.recall, 4), "precision": round(self.precision, 4),
            "located": self.located, "rank_accuracy": round(self.rank_accuracy, 4),
            "suit_accuracy": round(self.suit_accuracy, 4),
            "worst_classes": [{"card": c, "recall": round(r, 4), "labels": n} for c, r, n in self.worst_classes()],
            "confusions": [{"true": t, "predicted": p, "count": k} for (t, p), k in self.confusions.most_common()],
        }

    def text(self) -> str:
        lines = [
            f"images {self.images}, labels {self.labels}, card detections {self.detections}",
            f"card-level recall    {self.recall:.3f}  ({self.found}/{self.labels})",
            f"card-level precision {self.precision:.3f}  ({self.found}/{self.detections})",
            f"located (some card detection inside the box) {self.located}/{self.labels}",
            f"rank right when located {self.rank_accuracy:.3f}, suit right {self.suit_accuracy:.3f}",
            "worst classes: " + ", ".join(f"{c} {r:.2f} ({n})" for c, r, n in self.worst_classes()),
        ]
        if self.confusions:
            lines.append("confusions (true -> predicted): " + ", ".join(
                f"{t}->{p} x{k}" for (t, p), k in self.confusions.most_common(10)))
        return "\n".join(lines)


def score_image(labels: list[Label], detections: list[Detection], report: Report) -> None:
    """Add one image to ``report``. Detections of non-card classes (``back``, ``hand``) are ignored."""
    cards = sorted((d for d in detections if is_card(d.card)), key=lambda d: -d.conf)
    report.images += 1
    report.labels += len(labels)
    report.detections += len(cards)
    for lab in labels:
        report.per_class.setdefault(lab.card, [0, 0])[0] += 1
    # found: same card, centre inside; the most confident detection claims first, each used once
    free = set(range(len(labels)))
    for det in cards:
        hits = [i for i in free if labels[i].card == det.card and _inside(det.centre, labels[i].box)]
        if hits:
            i = min(hits, key=lambda i: _distance(det.centre, labels[i].box))
            free.discard(i)
            report.found += 1
            report.per_class[labels[i].card][1] += 1
    # located: some card detection inside the box. The one judged is a right one if there is one, else the
    # most confident: is its rank right, its suit?
    for lab in labels:
        inside = [d for d in cards if _inside(d.centre, lab.box)]
        if not inside:
            continue
        judged = next((d for d in inside if d.card == lab.card), inside[0])
        report.located += 1
        report.rank_right += rank(judged.card) == rank(lab.card)
        report.suit_right += suit(judged.card) == suit(lab.card)
        if judged.card != lab.card:
            report.confusions[(lab.card, judged.card)] += 1


def _distance(p: tuple[float, float], box: Box) -> float:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return (p[0] - cx) ** 2 + (p[1] - cy) ** 2


def score(labels: dict[str, list[Label]], detections: dict[str, list[Detection]]) -> Report:
    """Score every labelled image (an image with no detections counts as all missed)."""
    report = Report()
    for image in sorted(labels):
        score_image(labels[image], detections.get(image, []), report)
    return report


def load_detections(path: str | Path) -> dict[str, list[Detection]]:
    """``{image: [{"card", "box", "conf"}]}``, the same shape as labels.json (what a detector run writes)."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    return {img: [Detection(d["card"], tuple(float(v) for v in d["box"]), float(d.get("conf", 1.0)))  # type: ignore[arg-type]
                  for d in items] for img, items in raw.items()}
