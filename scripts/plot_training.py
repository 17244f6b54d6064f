#!/usr/bin/env python3
"""Draws a `draftbench train` run's curves, each as PNG and SVG.

  training_loss       train and validation loss per epoch, and the logged training loss
                      per optimiser step (train_log.json) when it is there
  training_accuracy   validation top-1 (solid) and top-3 (dashed) accuracy per epoch, one
                      colour per Medusa head or ReDrafter/EAGLE draft step; the epoch whose
                      weights early stopping kept is marked

Reads RUN/train_epochs.jsonl (one JSON line per epoch, written by `draftbench train`) and
RUN/train_log.json. A file that is missing or not what `draftbench train` writes is one line
on stderr naming the file, exit code 1.

  scripts/plot_training.py data/train/redrafter                  # -> data/train/redrafter/plots/
  scripts/plot_training.py data/train/redrafter --out docs/curves
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only: training runs on machines without a display
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.hashsalt"] = "draftbench"  # fixed SVG ids: the same log gives the same file


class InputError(Exception):
    pass


def read_epochs(path):
    """The epoch records, checked for the fields the figures use."""
    if not os.path.isfile(path):
        raise InputError(f"{path}: missing (expected the train_epochs.jsonl of a `draftbench train` --out directory)")
    records = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{path}: line {number}: not JSON ({e.msg})") from None
            for field in ("epoch", "train", "valid", "valid_top1", "valid_top3"):
                if field not in record:
                    raise InputError(f"{path}: line {number}: field '{field}' missing (expected a draftbench epoch record)")
            for split in ("train", "valid"):
                if not isinstance(record[split], dict) or not isinstance(record[split].get("loss"), (int, float)):
                    raise InputError(f"{path}: line {number}: field '{split}.loss' missing or not a number")
            if len(record["valid_top1"]) != len(record["valid_top3"]):
                raise InputError(f"{path}: line {number}: fields 'valid_top1' and 'valid_top3' differ in length")
            records.append(record)
    if not records:
        raise InputError(f"{path}: holds no epochs (expected one JSON line per finished epoch)")
    return records


def read_step_losses(path):
    """(step, loss) of train_log.json's entries; empty when the file is absent."""
    if not os.path.isfile(path):
        return []
    try:
        with open(path, encoding="utf-8") as f:
            log = json.load(f)
        return [(e["step"], e["loss"]) for e in log.get("entries", [])]
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
        raise InputError(f"{path}: not a draftbench train_log.json ({e})") from None


def save(fig, out_dir, name):
    fig.savefig(os.path.join(out_dir, f"{name}.png"), dpi=120, bbox_inches="tight")
    # No timestamp either, so that shipping a drafter again leaves its committed curves alone.
    fig.savefig(os.path.join(out_dir, f"{name}.svg"), bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    print(f"wrote {os.path.join(out_dir, name)}.png/.svg")


def plot_loss(records, step_losses, title, out_dir):
    fig, ax = plt.subplots(figsize=(7, 4.2))
    epochs = [r["epoch"] for r in records]
    if step_losses:
        # Steps as fractions of epochs (the first epoch's steps), so both curves share the x axis.
        steps_per_epoch = records[0].get("step", 0) / max(records[0]["epoch"], 1)
        if steps_per_epoch > 0:
            xs = [s / steps_per_epoch for s, _ in step_losses]
            ax.plot(xs, [l for _, l in step_losses], color="#9e9e9e", linewidth=0.8, label="train (per logged step)")
    ax.plot(epochs, [r["train"]["loss"] for r in records], "o-", color="#1f77b4", label="train (epoch)")
    ax.plot(epochs, [r["valid"]["loss"] for r in records], "s-", color="#d62728", label="validation")
    ax.set_xlabel("epoch")
    ax.set_ylabel("loss (sum over heads / steps)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    save(fig, out_dir, "training_loss")


def plot_accuracy(records, title, out_dir):
    fig, ax = plt.subplots(figsize=(7, 4.2))
    epochs = [r["epoch"] for r in records]
    per = records[-1].get("per", "step")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i in range(len(records[-1]["valid_top1"])):
        colour = colours[i % len(colours)]
        top1 = [r["valid_top1"][i] if i < len(r["valid_top1"]) else None for r in records]
        top3 = [r["valid_top3"][i] if i < len(r["valid_top3"]) else None for r in records]
        ax.plot(epochs, top1, "o-", color=colour, label=f"{per} {i + 1} top-1")
        ax.plot(epochs, top3, "o--", color=colour, alpha=0.7, label=f"{per} {i + 1} top-3")
    best = [r["epoch"] for r in records if r.get("best")]
    if best:
        ax.axvline(best[-1], color="#616161", linestyle=":", label=f"best validation loss (epoch {best[-1]})")
    ax.set_xlabel("epoch")
    ax.set_ylabel("validation accuracy")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", ncol=2)
    save(fig, out_dir, "training_accuracy")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="a `draftbench train` --out directory (or its train_epochs.jsonl)")
    parser.add_argument("--out", help="directory for the figures (default RUN/plots)")
    args = parser.parse_args()
    run_dir = os.path.dirname(args.run) if args.run.endswith(".jsonl") else args.run
    epochs_path = args.run if args.run.endswith(".jsonl") else os.path.join(run_dir, "train_epochs.jsonl")
    try:
        records = read_epochs(epochs_path)
        step_losses = read_step_losses(os.path.join(run_dir, "train_log.json"))
    except InputError as e:
        print(f"plot_training: {e}", file=sys.stderr)
        return 1
    out_dir = args.out or os.path.join(run_dir, "plots")
    os.makedirs(out_dir, exist_ok=True)
    title = f"{records[-1].get('drafter', 'drafter')}: {os.path.basename(os.path.normpath(run_dir))}"
    plot_loss(records, step_losses, title, out_dir)
    plot_accuracy(records, title, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
