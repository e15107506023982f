"""``benchwatch calibrate``: new items given known abilities, or new models given known difficulties."""

from __future__ import annotations

import argparse
import sys

from bot.errors import InputError
from bot.irt import calibrate_items, calibrate_models, encode_responses
from bot.sources import fetch_csv_file, read_csv_text
from bot.store import atomic_write_text, validate_parameters, validate_responses


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument("file", metavar="RESPONSES.csv", help="responses of the new items or new models")
    known = parser.add_mutually_exclusive_group(required=True)
    known.add_argument("--abilities", metavar="MODELS.csv", help="known abilities (model,theta): fit new items")
    known.add_argument("--difficulties", metavar="ITEMS.csv", help="known difficulties (item_id,b): fit new models")
    parser.add_argument("--out", metavar="FILE.csv", help="write here instead of standard output")


def handle(args: argparse.Namespace) -> int:
    """Calibrate and write the estimates as CSV."""
    table = fetch_csv_file(args.file)
    data = encode_responses(validate_responses(table.frame, table.location))
    try:
        if args.abilities:
            theta = validate_parameters(read_csv_text(args.abilities), args.abilities, "model", "theta")
            out = calibrate_items(data, theta)
        else:
            b = validate_parameters(read_csv_text(args.difficulties), args.difficulties, "item_id", "b")
            out = calibrate_models(data, b)
    except ValueError as exc:
        raise InputError(args.abilities or args.difficulties, str(exc)) from None
    text = out.to_csv(index=False, lineterminator="\n", float_format="%.6g")
    if args.out:
        atomic_write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return 0
