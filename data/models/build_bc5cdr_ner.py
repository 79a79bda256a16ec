"""Build the offline BC5CDR chemical/disease NER pipeline ``data/models/bc5cdr-ner`` (issue 14).

A spaCy 3 pipeline (blank English tokenizer with extra infixes, hash-embedding CNN ``tok2vec``, transition
-based ``ner``; no pretrained vectors, no download) trained on the BC5CDR **training** split only, with the
development split for model selection (spaCy keeps the best ``ents_f`` on it and stops after ``patience``
steps without improvement). The test split is never read here; ``benchmarks/quality/ner.py`` scores it.

Usage (the shipped model: 3,600 updates, about 8 CPU minutes, 40 minutes wall on a 2-core machine at load 13-17)::

    python data/models/build_bc5cdr_ner.py --corpus /path/to/shared/data/corpora/BC5CDR \
        [--out data/models/bc5cdr-ner] [--seed 14]

Data: BioCreative V CDR corpus (Li et al., Database 2016), a US Government work in the public domain
(NCBI public-domain notice in the corpus README); cite Wei et al. 2015 and Li et al. 2015 when using the
model. See ``data/models/README.md``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

import spacy
from spacy.tokens import DocBin
from spacy.util import compile_infix_regex

TRAIN_FILE = "CDR_TrainingSet.trainonly.PubTator.txt"
DEV_FILE = "CDR_DevelopmentSet.PubTator.txt"
#: Extra infixes on top of spaCy's English ones: BC5CDR mentions end or start at these characters inside a
#: whitespace token ("(PAN)-induced", "Na+-K+", "xenon-133"); with them 6 of 9,385 training mentions do not
#: align to token boundaries (121 with spaCy's defaults).
EXTRA_INFIXES = (r"[/()\[\],;:+=]", r"(?<=[0-9])-(?=[A-Za-z])", r"(?<=[A-Za-z])-(?=[0-9])", r"-")

CONFIG = """
[paths]
train = null
dev = null

[system]
seed = {seed}
gpu_allocator = null

[nlp]
lang = "en"
pipeline = ["tok2vec","ner"]
batch_size = 256

[components]

[components.tok2vec]
factory = "tok2vec"

[components.tok2vec.model]
@architectures = "spacy.Tok2Vec.v2"

[components.tok2vec.model.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 96
attrs = ["NORM","PREFIX","SUFFIX","SHAPE"]
rows = [5000,1000,2500,2500]
include_static_vectors = false

[components.tok2vec.model.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = 96
depth = 4
window_size = 1
maxout_pieces = 3

[components.ner]
factory = "ner"

[components.ner.model]
@architectures = "spacy.TransitionBasedParser.v2"
state_type = "ner"
extra_state_tokens = false
hidden_width = 64
maxout_pieces = 2
use_upper = true
nO = null

[components.ner.model.tok2vec]
@architectures = "spacy.Tok2VecListener.v1"
width = 96
upstream = "*"

[corpora]

[corpora.train]
@readers = "spacy.Corpus.v1"
path = ${{paths.train}}
max_length = 0

[corpora.dev]
@readers = "spacy.Corpus.v1"
path = ${{paths.dev}}
max_length = 0

[training]
seed = ${{system.seed}}
gpu_allocator = ${{system.gpu_allocator}}
dropout = 0.2
accumulate_gradient = 1
patience = {patience}
max_epochs = {max_epochs}
max_steps = {max_steps}
eval_frequency = 200
frozen_components = []
annotating_components = []
dev_corpus = "corpora.dev"
train_corpus = "corpora.train"

[training.batcher]
@batchers = "spacy.batch_by_words.v1"
discard_oversize = false
tolerance = 0.2

[training.batcher.size]
@schedules = "compounding.v1"
start = 100
stop = 1000
compound = 1.001

[training.optimizer]
@optimizers = "Adam.v1"
beta1 = 0.9
beta2 = 0.999
L2_is_weight_decay = true
L2 = 0.01
grad_clip = 1.0
eps = 0.00000001
learn_rate = 0.001

[training.score_weights]
ents_f = 1.0
ents_p = 0.0
ents_r = 0.0

[initialize]
vectors = null

[initialize.before_init]
@callbacks = "engram_bc5cdr_tokenizer"
"""


@spacy.registry.callbacks("engram_bc5cdr_tokenizer")
def _tokenizer_callback():  # type: ignore[no-untyped-def]
    def before_init(nlp):  # type: ignore[no-untyped-def]
        customize_tokenizer(nlp)
        return nlp
    return before_init


def customize_tokenizer(nlp: spacy.language.Language) -> None:
    """Add :data:`EXTRA_INFIXES` to ``nlp``'s tokenizer (serialised with the pipeline)."""
    infixes = list(nlp.Defaults.infixes) + list(EXTRA_INFIXES)
    nlp.tokenizer.infix_finditer = compile_infix_regex(infixes).finditer


def read_pubtator(path: Path) -> list[tuple[str, list[tuple[int, int, str]]]]:
    """(title + " " + abstract, [(start, end, type)]) per document of a PubTator file."""
    docs: list[tuple[str, list[tuple[int, int, str]]]] = []
    title = abstract = ""
    spans: list[tuple[int, int, str]] = []
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if not line.strip():
            if title or abstract:
                docs.append((f"{title} {abstract}", spans))
            title = abstract = ""
            spans = []
        elif re.match(r"^\S+\|t\|", line):
            title = line.split("|", 2)[2]
        elif re.match(r"^\S+\|a\|", line):
            abstract = line.split("|", 2)[2]
        else:
            cols = line.split("\t")
            if len(cols) >= 5 and cols[1].isdigit():
                spans.append((int(cols[1]), int(cols[2]), cols[4]))
    return docs


def to_docbin(nlp: spacy.language.Language, docs: list[tuple[str, list[tuple[int, int, str]]]]) -> tuple[DocBin, int]:
    """Docs with gold entities; mentions that do not fall on token boundaries (or overlap) are dropped."""
    out = DocBin()
    dropped = 0
    for text, spans in docs:
        doc = nlp.make_doc(text)
        ents = []
        last_end = -1
        for start, end, label in sorted(spans):
            span = doc.char_span(start, end, label=label)
            if span is None or span.start < last_end:
                dropped += 1
                continue
            ents.append(span)
            last_end = span.end
        doc.ents = ents
        out.add(doc)
    return out, dropped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="folder with the BC5CDR PubTator files")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "bc5cdr-ner")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--max-epochs", type=int, default=40)
    parser.add_argument("--patience", type=int, default=1600)
    parser.add_argument("--max-steps", type=int, default=3600,
                        help="stop after this many updates (3600: the shipped model, dev ents_f 0.803)")
    args = parser.parse_args(argv)
    from spacy.cli.train import train

    nlp = spacy.blank("en")
    customize_tokenizer(nlp)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, file in (("train", TRAIN_FILE), ("dev", DEV_FILE)):
            docbin, dropped = to_docbin(nlp, read_pubtator(args.corpus / file))
            docbin.to_disk(work / f"{name}.spacy")
            print(f"{name}: {len(docbin)} documents, {dropped} mentions off token boundaries dropped")
        config = work / "config.cfg"
        config.write_text(CONFIG.format(seed=args.seed, patience=args.patience, max_epochs=args.max_epochs,
                                             max_steps=args.max_steps))
        train(config, work / "out", overrides={"paths.train": str(work / "train.spacy"),
                                               "paths.dev": str(work / "dev.spacy")})
        best = work / "out" / "model-best"
        if args.out.exists():
            shutil.rmtree(args.out)
        shutil.copytree(best, args.out)
    # the tokenizer's infixes are serialised with the pipeline: loading needs no callback of this script
    shipped = args.out / "config.cfg"
    text = shipped.read_text(encoding="utf-8").replace(
        '[initialize.before_init]\n@callbacks = "engram_bc5cdr_tokenizer"\n', "")
    shipped.write_text(text.replace("[initialize]\n", "[initialize]\nbefore_init = null\n", 1), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
