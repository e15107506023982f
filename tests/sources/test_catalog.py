"""The source catalog (issue 39): every adapter module registered once with its typed options class, each
covered by a fixture or real-file test, the shipped configuration valid, and an unknown or mistyped option
stopping `run` and `check` with one line naming the source, the key and the value, before any fetch."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

from benchwatch.cli import main
from benchwatch.sources import SourceConfig, load_config
from benchwatch.sources import adapters as adapters_package
from benchwatch.sources.adapters import ADAPTERS, CATALOG
from benchwatch.sources.options import OptionError, SourceOptions

ROOT = Path(__file__).resolve().parents[2]

# Which test reads each adapter through `load_source` (a fixture built from the producer's code, or a real
# upstream file): adding an adapter without one fails `test_every_adapter_has_a_fixture_or_real_file_test`.
COVERED_BY = {
    "swebench": "test_adapters_real.py::test_swebench_one_per_item_benchmark_from_all_boards",
    "livecodebench": "test_adapters_real.py::test_livecodebench_fractional_scores_with_trials",
    "evalarena": "test_adapters_real.py::test_evalarena_one_benchmark_per_file",
    "livebench": "test_adapters_fixtures.py::test_livebench_release_retired_questions_and_unscored_rows",
    "livebench_site": "test_adapters_real.py::test_livebench_site_tasks_and_categories_of_the_newest_release",
    "helm": "test_helm_real.py::test_each_real_runs_instances_average_to_helms_own_aggregate",
    "epoch": "test_adapters_real.py::test_epoch_real_archive_reads_only_configured_files",
    "epoch_samples": "test_adapters_real.py::test_epoch_samples_each_run_checked_against_epochs_published_score",
    "evalplus": "test_adapters_real.py::test_evalplus_aggregate_table",
    "mmlu_pro": "test_adapters_real.py::test_mmlu_pro_outputs_reproduce_each_models_accuracy_and_the_shared_long_table",
    "inspect_index": "test_inspect_index.py::test_each_log_is_fetched_once_across_runs_and_the_cap_holds",
    "csv": "test_adapters_fixtures.py::test_csv_adapter_and_its_validation",
    "alpaca_eval": "test_adapters_real.py::test_alpaca_eval_win_rates_recomputed_from_the_judges_preferences",
    "eee": "test_eee.py::test_the_datastore_adapter_fetches_each_record_once_across_runs",
    "open_llm": "test_open_llm.py::test_three_runs_with_a_cap_of_two_models_fetch_each_model_once",
    "all_the_noises": "test_adapters_real.py::"
    "test_all_the_noises_sampled_versions_a_benchmark_per_setting_with_their_samples_as_trials",
    "terminal_bench": "test_adapters_real.py::test_terminal_bench_each_submissions_runs_as_trials_its_accuracy_kept",
    "can_ai_code": "test_adapters_real.py::test_can_ai_code_every_run_a_configuration_its_repeats_samples_of_it",
    "bfcl": "test_bfcl.py::test_bfcl_the_newest_snapshots_items_its_models_dated_by_their_first_snapshot",
    "bfcl_leaderboard": "test_bfcl_leaderboard.py::test_bfcl_leaderboard_real_versions_columns_scores_dates",
    "llmstats": "test_llmstats.py::test_llmstats_real_cards_each_configured_score_once_self_reported",
    "benchbench": "test_benchbench.py::test_benchbench_shipped_boards_on_the_real_catalogue",
}


def test_every_adapter_module_is_registered_once_with_its_own_options_class():
    modules = {m.name for m in pkgutil.iter_modules(adapters_package.__path__)}
    registered = {entry.load.__module__.rsplit(".", 1)[-1]: name for name, entry in CATALOG.items()}
    assert modules == set(registered), "every module in sources/adapters/ is in CATALOG, and nothing else"
    assert len(registered) == len(CATALOG)  # one module, one name
    for name, entry in CATALOG.items():
        module = importlib.import_module(entry.load.__module__)
        assert entry.name == name and ADAPTERS[name] is entry.load
        assert entry.options is module.Options and issubclass(entry.options, SourceOptions)
        assert "Options.of(cfg)" in inspect.getsource(module.load)  # load reads the class it is registered with
        assert entry.options.model_config["extra"] == "forbid"


def test_adapters_read_their_options_by_attribute_never_from_the_raw_table():
    for entry in CATALOG.values():
        source = inspect.getsource(importlib.import_module(entry.load.__module__))
        assert "cfg.options" not in source, entry.name


def _test_functions(file: str) -> dict[str, ast.FunctionDef]:
    tree = ast.parse((ROOT / "tests" / "sources" / file).read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_every_adapter_has_a_fixture_or_real_file_test():
    assert set(COVERED_BY) == set(CATALOG)
    for name, where in COVERED_BY.items():
        file, function = where.split("::")
        found = _test_functions(file)
        assert function in found, f"{name}: no test {where}"
        text = ast.get_source_segment((ROOT / "tests" / "sources" / file).read_text(encoding="utf-8"), found[function])
        assert f'"{name}"' in text, f"{where} does not load the adapter {name}"


def test_the_shipped_configuration_validates_and_every_option_it_sets_is_declared():
    config = load_config(ROOT / "benchwatch.toml")
    config.check_adapters(CATALOG)
    for cfg in config.sources.values():
        options = CATALOG[cfg.adapter].options.of(cfg)
        for key, value in cfg.options.items():  # each one reaches the adapter as the file gives it
            assert getattr(options, key) == value, (cfg.name, key)


def test_every_options_defaults_validate():
    for entry in CATALOG.values():
        entry.options.model_validate({})


def _config(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "benchwatch.toml"
    path.write_text(f'[sources.swe]\nadapter = "swebench"\nurl = "http://127.0.0.1:9/never"\n{extra}\n')
    return path


@pytest.mark.parametrize(
    ("extra", "line"),
    [
        ("tolerence_pp = 5.0", "source 'swe' (swebench): unknown option 'tolerence_pp' = 5.0"),
        ('tolerance_pp = "5"', "source 'swe' (swebench): option 'tolerance_pp' = '5': input should be a valid number"),
        ("board_sizes = { Lite = 3.5 }", "option 'board_sizes.Lite' = 3.5: input should be a valid integer"),
    ],
)
def test_an_unknown_or_mistyped_option_is_one_line_naming_source_key_and_value(tmp_path, extra, line):
    path = _config(tmp_path, extra)
    with pytest.raises(OptionError) as err:
        load_config(path)
    assert str(err.value).startswith(f"{path}: ") and line in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("tolerence_pp = 5.0", "source 'swe' (swebench): unknown option 'tolerence_pp' = 5.0"),
        ('tolerance_pp = "5"', "source 'swe' (swebench): option 'tolerance_pp' = '5'"),
    ],
)
def test_run_and_check_stop_on_a_bad_option_with_one_line_before_any_fetch(tmp_path, capsys, command, extra, words):
    path = _config(tmp_path, extra)  # the url is a closed port: a fetch would fail otherwise
    argv = ["--config", str(path), "--reports", str(tmp_path / "r")]
    argv += ["--cache", str(tmp_path / "c"), "--no-site"] if command == "run" else []
    assert main([command, *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"benchwatch: error: {path}: {words}")
    assert not (tmp_path / "c").exists() and not (tmp_path / "r").exists()  # nothing fetched, nothing written


def test_check_reads_the_configuration_in_the_folder_when_there_is_one(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _config(tmp_path, "tolerence_pp = 5.0")
    assert main(["check", "--reports", str(tmp_path / "r")]) == 2
    assert "unknown option 'tolerence_pp'" in capsys.readouterr().err


def test_a_bad_option_of_a_source_built_in_code_fails_its_load(tmp_path):
    from benchwatch.sources import Fetcher, load_source

    cfg = SourceConfig("disk", "csv", str(tmp_path / "x.csv"), {"benchmrk": "b"})
    with (
        Fetcher(tmp_path / "cache", retries=0) as fetcher,
        pytest.raises(OptionError, match="unknown option 'benchmrk'"),
    ):
        load_source(fetcher, cfg)
