"""The labelled document folders bench/handbook_trial.py can run on, and how to name one.

Twelve are bundled: Clef's employee handbook (MIT), on which fixes have been fitted; the TTS
Handbook's policy pages (US public domain, CC0), to check that a change measured on the first
generalises (three fixes have since been found on it, so it is only partly held out);
PostHog's handbook pages (MIT), which no change is fitted on, kept for before/after figures
on documents nothing has seen (but whose failures have since been looked at); GitLab's
handbook pages on people policy (held out: nothing is fitted on them, and only their
aggregate figures are reported); and Sourcegraph's handbook pages on people and benefits
policy (Apache-2.0 repository), dev data like Clef and TTS: labelled before any output on
them was seen, but their turns may be read; CivicActions' guidebook pages on people
policy (CC BY 4.0), held out like GitLab's; Fleet's handbook pages on workplace policy
and security (MIT), held out too; Zulip's help-center pages (Apache-2.0), product support
documentation rather than a handbook, held out too; Read the Docs' policy pages (MIT), an
online service's terms of service, privacy, security, DMCA and project-name policies, held
out too; Meltano's handbook pages on people ops and workplace policy (MIT repository),
dev data like Sourcegraph's, written to be rich in follow-ups with several candidate
antecedents; the Kubernetes community's governance and contributor policies (CC BY 4.0:
membership roles, the CLA, the Code of Conduct Committee, security reporting, Slack and Zoom
rules), an open-source project's governance rather than a handbook, held out too; and Hypha
Worker Co-operative's handbook pages on people policy (CC BY-SA 4.0: leave, parental leave,
salary and reviews, expenses, payroll, disconnecting, harassment, conflicts of interest,
membership), held out too. Any folder of documents with labelled conversations beside it works
the same.

A thirteenth, held out too: Supabase's platform documentation on billing, usage and accounts
(Apache-2.0: plans and quotas, invoices, credits, the Spend Cap, project pausing, backups,
transfers, MFA and SSO), a hosted developer platform's support pages.

A fourteenth, held out too: Tuist's information security policies for staff (MIT: acceptable
use, devices, remote work, access requests and offboarding, passwords, data classification,
USB and cloud storage, incident reporting, suppliers, continuity, vulnerability fixes), an
organisation's internal IT and security policies.

A fifteenth, held out too: the Nextcloud User Manual's end-user help pages (CC BY 3.0: quota,
trash bin and versions, sharing, encryption, two-factor authentication, the desktop sync
client, activity notifications, Calendar, Talk), a self-hosted application's user guide.

A sixteenth, held out too: FlowFuse's handbook pages on people ops (MIT: unlimited time off,
bereavement and parental leave, expenses and their approvals, pay, equity, benefits and
bonuses, travel and the company summit, reviews, coaching plans, grievances, conduct, hiring,
onboarding and offboarding, US immigration), an all-remote company's employee handbook.

A seventeenth, held out too: GitHub's developer documentation (CC BY 4.0: REST and GraphQL
rate limits, authentication and tokens, token expiry and revocation, errors and status codes,
API versions, webhooks and their failures, GitHub Actions limits), a hosted API's service
documentation.

An eighteenth, held out too: the Foundation for Public Code's staff handbook pages (CC0:
vacation and buying extra days, emergency and care leave, sickness and its pay, pregnancy and
partner leave, working hours and overtime, expenses and the remuneration policy, travel,
remote working, professional development, gifts and conflicts of interest, probation,
contracts and renewals, onboarding, offboarding, payroll, public holidays), a Dutch
non-profit's employee handbook.

A nineteenth, held out too: DVELP's staff handbook pages (MIT: booking holidays and public
holidays, working hours, time off in lieu, sickness absence and certificates, compassionate
leave, maternity and paternity leave and their statutory pay, flexible working requests,
expenses, the referral reward, training courses, goal reviews, mentoring and onboarding, own
devices and returning equipment, grievances, disciplinary warnings, harassment), a UK
consultancy's staff handbook.

A twentieth and a twenty-first, held out too (session 42, written and labelled by helpers from
the documents alone before any output): the Deeson Handbook's people-policy pages (CC BY-SA
4.0, a UK digital agency: leave, working hours and place, pay, expenses and travel, tools,
wellness, training, conferences, sabbaticals, pension, pay reviews, onboarding, sickness,
parental leave) and CryptPad's user guide (CC BY 4.0, an encrypted collaboration suite's help
pages: accounts, drive, sharing and access, teams, security, instances, support, the FAQ).

A twenty-second and a twenty-third, held out too (session 43, written and labelled by helpers
from the documents alone before any output): the Loomio Co-op Handbook (CC BY-SA 4.0, a New
Zealand worker co-operative: annual leave under the Holidays Act, employment terms, onboarding,
the wellbeing budget, professional development, stewarding, membership, points and funding,
conflict resolution, health and safety) and the Tor Project's support pages (MIT, short FAQ
pages: connecting and censorship, bridges, onion sites, proxies, antivirus, verifying
downloads, bookmarks, letterboxing, Android and iOS, reporting bugs).

A twenty-fourth and a twenty-fifth, held out too (session 43, the same way): the P2PU Staff
Handbook (CC BY-SA 4.0, Peer 2 Peer University, a small international non-profit: leave,
travel, salary model, budget, roles, hiring, onboarding, meetings, communications, events,
moderation) and PyPI's user help (Apache-2.0: storage limits, yanking, owners, names and name
retention, account recovery, two-factor authentication, organizations and their roles,
publishing and trusted publishing, installing, getting help).

A twenty-sixth and a twenty-seventh, held out too (session 44, the same way): the Leaf
Employee Handbook (MIT, a small UK remote software studio: holidays, the Christmas shutdown,
sickness and statutory sick pay, pay and pensions, probation, working hours, expenses,
moonlighting, capability, disciplinary and grievance procedures, whistle-blowing, leaving)
and the subscriber documentation of Let's Encrypt (MPL-2.0, a free certificate authority:
rate limits, the staging environment, expiration emails, revoking and reason codes,
challenge types, port 80, IPv6, CAA, certificates for localhost, the FAQ).

A twenty-eighth and a twenty-ninth, held out too (session 44, the same way): the way-of-working
handbook of the Research Engineering Group at The Alan Turing Institute (CC BY 4.0: expenses,
visa refunds, special, sick and parental leave, reasonable adjustments, appraisals, line
management, remote working, onboarding, the buddy system, events) and Cloudflare's billing
help (CC BY 4.0: plans and subscriptions, invoices, payment methods and retries, billing
thresholds, taxes and VAT, refunds, billing roles, cancelling and deleting an account).

A thirtieth and a thirty-first, held out too and written at the end of session 44 for the
next session's registered tests (no system output on them seen): the Ultralytics staff
handbook (AGPL-3.0: time off, meetings, careers, expenses, travel and per diem, relocation,
referrals, hardware and software, social media, security) and Docker's account and billing
documentation (Apache-2.0: accounts, billing, subscriptions, Docker Hub usage and limits,
security, support).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data"
RESULTS = ROOT / "bench" / "results"


@dataclass(frozen=True)
class Corpus:
    """A folder of documents, its labelled conversations, where its report goes and how the
    report names it."""

    name: str
    root: Path
    conversations: Path
    out: Path
    title: str
    held_out: bool = False
    """Nothing is fitted on it: benches print its totals, never its turns."""


def _held_out(name: str, folder: str, title: str) -> Corpus:
    """A held-out corpus in bench/data/FOLDER: its per-turn report goes to the ignored
    bench/.trials, so its turns cannot land in bench/results by accident."""
    return Corpus(
        name,
        DATA / folder,
        DATA / f"{folder}_conversations.jsonl",
        ROOT / "bench" / ".trials" / f"{folder}_trial",
        f"{title} (held out: nothing is fitted on them)",
        held_out=True,
    )


CORPORA = {
    "clef": Corpus(
        "clef",
        DATA / "clef_handbook",
        DATA / "clef_handbook_conversations.jsonl",
        RESULTS / "handbook_trial",
        "Clef's MIT-licensed employee handbook",
    ),
    "tts": Corpus(
        "tts",
        DATA / "tts_handbook",
        DATA / "tts_handbook_conversations.jsonl",
        RESULTS / "tts_handbook_trial",
        "the TTS Handbook's policy pages, US public domain and CC0",
    ),
    "posthog": Corpus(
        "posthog",
        DATA / "posthog_handbook",
        DATA / "posthog_handbook_conversations.jsonl",
        RESULTS / "posthog_handbook_trial",
        "PostHog's MIT-licensed handbook pages (held out: nothing is fitted on them)",
        held_out=True,
    ),
    "gitlab": _held_out("gitlab", "gitlab_handbook", "GitLab's handbook pages on people policy"),
    "sourcegraph": Corpus(
        "sourcegraph",
        DATA / "sourcegraph_handbook",
        DATA / "sourcegraph_handbook_conversations.jsonl",
        RESULTS / "sourcegraph_handbook_trial",
        "Sourcegraph's handbook pages on people and benefits policy (Apache-2.0 repository)",
    ),
    "civicactions": _held_out(
        "civicactions",
        "civicactions_handbook",
        "CivicActions' guidebook pages on people policy, CC BY 4.0",
    ),
    "fleet": _held_out(
        "fleet", "fleet_handbook", "Fleet's handbook pages on workplace policy and security, MIT"
    ),
    "zulip": _held_out(
        "zulip",
        "zulip_help",
        "Zulip's help-center pages, product support documentation, Apache-2.0",
    ),
    "rtd": _held_out(
        "rtd",
        "rtd_policies",
        "Read the Docs' policy pages (terms, privacy, security, DMCA, projects), MIT",
    ),
    "k8s": _held_out(
        "k8s",
        "k8s_community",
        "the Kubernetes community's governance and contributor policies, CC BY 4.0",
    ),
    "hypha": _held_out(
        "hypha",
        "hypha_handbook",
        "Hypha Worker Co-operative's handbook pages on people policy, CC BY-SA 4.0",
    ),
    "supabase": _held_out(
        "supabase",
        "supabase_help",
        "Supabase's platform documentation on billing, usage and accounts, Apache-2.0",
    ),
    "tuist": _held_out(
        "tuist",
        "tuist_it_policies",
        "Tuist's information security policies for staff, MIT",
    ),
    "nextcloud": _held_out(
        "nextcloud",
        "nextcloud_help",
        "the Nextcloud User Manual's end-user help pages, CC BY 3.0",
    ),
    "flowfuse": _held_out(
        "flowfuse",
        "flowfuse_handbook",
        "FlowFuse's handbook pages on people ops, MIT",
    ),
    "github": _held_out(
        "github",
        "github_docs",
        "GitHub's developer documentation on API limits, tokens, errors and webhooks, CC BY 4.0",
    ),
    "publiccode": _held_out(
        "publiccode",
        "publiccode_handbook",
        "the Foundation for Public Code's staff handbook pages, CC0",
    ),
    "dvelp": _held_out(
        "dvelp",
        "dvelp_handbook",
        "DVELP's staff handbook pages on people policy, MIT",
    ),
    "deeson": _held_out(
        "deeson",
        "deeson_handbook",
        "the Deeson Handbook's people-policy pages (a UK digital agency), CC BY-SA 4.0",
    ),
    "cryptpad": _held_out(
        "cryptpad",
        "cryptpad_help",
        "CryptPad's user guide on accounts, sharing, access, teams and security, CC BY 4.0",
    ),
    "loomio": _held_out(
        "loomio",
        "loomio_handbook",
        "the Loomio Co-op Handbook's people and membership pages (New Zealand), CC BY-SA 4.0",
    ),
    "tor": _held_out(
        "tor",
        "tor_support",
        "the Tor Project's support pages on connecting, censorship and Tor Browser, MIT",
    ),
    "p2pu": _held_out(
        "p2pu",
        "p2pu_handbook",
        "the P2PU Staff Handbook (Peer 2 Peer University, a non-profit), CC BY-SA 4.0",
    ),
    "pypi": _held_out(
        "pypi",
        "pypi_help",
        "PyPI's user help on accounts, projects, organizations and publishing, Apache-2.0",
    ),
    "leaf": _held_out(
        "leaf",
        "leaf_handbook",
        "the Leaf Employee Handbook (a UK software studio), MIT",
    ),
    "letsencrypt": _held_out(
        "letsencrypt",
        "letsencrypt_docs",
        "Let's Encrypt's documentation on rate limits, validation and revocation, MPL-2.0",
    ),
    "turing": _held_out(
        "turing",
        "turing_reg_handbook",
        "the Turing Research Engineering Group's handbook, CC BY 4.0",
    ),
    "cloudflare": _held_out(
        "cloudflare",
        "cloudflare_billing_help",
        "Cloudflare's billing help pages, CC BY 4.0",
    ),
    "ultralytics": _held_out(
        "ultralytics",
        "ultralytics_handbook",
        "the Ultralytics staff handbook, AGPL-3.0",
    ),
    "docker": _held_out(
        "docker",
        "docker_help",
        "Docker's account, billing and subscription documentation, Apache-2.0",
    ),
    "catalyst": _held_out(
        "catalyst",
        "catalyst_handbook",
        "Catalyst Cooperative's handbook, policies and bylaws, CC BY 4.0",
    ),
    "grist": _held_out(
        "grist",
        "grist_help",
        "the Grist Help Center's pages on plans, sharing, backups, the API and AI, CC BY-SA 4.0",
    ),
    "expo": _held_out(
        "expo",
        "expo_help",
        "Expo's help pages on EAS plans, billing, accounts and limits, MIT",
    ),
    "variant": _held_out(
        "variant",
        "variant_handbook",
        "Variant's staff handbook (Norwegian: pay, leave, expenses, safety), CC BY-SA 4.0",
    ),
    "ten7": _held_out(
        "ten7",
        "ten7_handbook",
        "TEN7's employee handbook (benefits, time off, conduct, quitting), GPL-3.0",
    ),
    "appwrite": _held_out(
        "appwrite",
        "appwrite_help",
        "Appwrite Cloud's help pages on plans, billing, limits and security, BSD-3-Clause",
    ),
    "cuesoft": _held_out(
        "cuesoft",
        "cuesoft_handbook",
        "Cuesoft's employee handbook (leave, pay, working hours, conduct), MIT",
    ),
    "sentry": _held_out(
        "sentry",
        "sentry_help",
        "Sentry's docs on plans, billing, quotas, accounts and data, Apache-2.0",
    ),
    "freelaw": _held_out(
        "freelaw",
        "freelaw_handbook",
        "Free Law Project's HR handbook (leave, benefits, retirement, conduct), MIT",
    ),
    "azure": _held_out(
        "azure",
        "azure_billing_help",
        "Microsoft Azure's billing help (free account, spending limit, payments), CC BY 4.0",
    ),
    "smartpath": _held_out(
        "smartpath",
        "smartpath_handbook",
        "SmartPath's employee handbook (benefits, expenses, conduct), MIT",
    ),
    "openproject": _held_out(
        "openproject",
        "openproject_help",
        "OpenProject's Enterprise cloud, support and account help, GPL-3.0",
    ),
    "carpentries": _held_out(
        "carpentries",
        "carpentries_handbook",
        "The Carpentries' handbook: expenses, staff fund, code of conduct, CC BY 4.0",
    ),
    "metabase": _held_out(
        "metabase",
        "metabase_help",
        "Metabase Cloud's help: accounts, billing, limits, security, AGPL-3.0",
    ),
    "pennlinc": _held_out(
        "pennlinc",
        "pennlinc_handbook",
        "PennLINC's lab handbook: time off, travel funding, reimbursement, onboarding, MIT",
    ),
    "joplin": _held_out(
        "joplin",
        "joplin_help",
        "Joplin's user help: Joplin Cloud account, encryption, sharing, sync, MIT",
    ),
    "pantheon": _held_out(
        "pantheon",
        "pantheon_help",
        "Pantheon's account, billing and plan help, CC BY-SA 4.0",
    ),
    "openjs": _held_out(
        "openjs",
        "openjs_handbook",
        "The OpenJS Foundation's travel funds, code of conduct and role policies, MIT",
    ),
    "truss": _held_out(
        "truss",
        "truss_handbook",
        "Truss's staff guide: time off, budgets, expenses, hours, benefits, CC BY 4.0",
    ),
    "strapi": _held_out(
        "strapi",
        "strapi_help",
        "Strapi Cloud's help: plans, usage limits, billing, projects, accounts, MIT",
    ),
    "jupyter": _held_out(
        "jupyter",
        "jupyter_handbook",
        "Project Jupyter's governance and code of conduct enforcement, BSD-3-Clause",
    ),
    "simplelogin": _held_out(
        "simplelogin",
        "simplelogin_help",
        "SimpleLogin's user help: plans, aliases, mailboxes, security, MIT",
    ),
    "homebrew": _held_out(
        "homebrew",
        "homebrew_handbook",
        "Homebrew's maintainer handbook: stipends, expenses, governance, BSD-2-Clause",
    ),
    "travis": _held_out(
        "travis",
        "travis_help",
        "Travis CI's billing, account and security help, MIT as its README states",
    ),
    "opengov": _held_out(
        "opengov",
        "opengov_handbook",
        "The OpenGov Foundation's staff manual: hours, leave, benefits, tools, CC0",
    ),
    "ably": _held_out(
        "ably",
        "ably_help",
        "Ably's pricing, billing and account help, Apache-2.0",
    ),
    "datum": _held_out(
        "datum",
        "datum_handbook",
        "Datum Technology's handbook: spending, travel, conduct, security duties, MIT",
    ),
    "temporal": _held_out(
        "temporal",
        "temporal_help",
        "Temporal Cloud's plans, billing, limits, users and security help, MIT",
    ),
    "shorebird": _held_out(
        "shorebird",
        "shorebird_handbook",
        "Shorebird's handbook (benefits, expenses, policies), many underspecified follow-ups, MIT",
    ),
    "codemagic": _held_out(
        "codemagic",
        "codemagic_help",
        "Codemagic's billing, teams and build help, many underspecified follow-ups, MIT",
    ),
    "outreachy": _held_out(
        "outreachy",
        "outreachy_handbook",
        "Outreachy's intern and mentor agreements, payments, travel and conduct, GPL-3.0",
    ),
    "ivpn": _held_out(
        "ivpn",
        "ivpn_help",
        "IVPN's billing, account, privacy and refund help, GPL-3.0",
    ),
    "meltano": Corpus(
        "meltano",
        DATA / "meltano_handbook",
        DATA / "meltano_handbook_conversations.jsonl",
        RESULTS / "meltano_handbook_trial",
        "Meltano's handbook pages on people ops and workplace policy (MIT repository)",
    ),
}
"""The bundled corpora; `clef` is the default. The per-turn reports of GitLab, CivicActions,
Fleet, Zulip, Read the Docs, Kubernetes, Hypha, Supabase, Tuist, Nextcloud, FlowFuse, GitHub,
the Foundation for Public Code, DVELP, Deeson, CryptPad, Loomio, Tor, P2PU, PyPI, Leaf, Let's
Encrypt, Turing, Cloudflare, Ultralytics, Docker, Catalyst, Grist, Expo, Variant, TEN7,
Appwrite, Cuesoft, Sentry, Free Law, Azure, SmartPath, OpenProject, Carpentries, Metabase,
PennLINC, Joplin, Pantheon, OpenJS, Truss, Strapi, Jupyter, SimpleLogin,
Homebrew, Travis, OpenGov, Ably, Datum, Temporal, Shorebird, Codemagic, Outreachy and IVPN go to
the ignored bench/.trials by default, so their turns cannot land in bench/results by accident."""
HELD_OUT = frozenset(name for name, c in CORPORA.items() if c.held_out)
"""The corpora whose turns no bench prints (PostHog, GitLab, CivicActions, Fleet, Zulip,
Read the Docs, Kubernetes, Hypha, Supabase, Tuist, Nextcloud, FlowFuse, GitHub, the Foundation for
Public Code, DVELP, Deeson, CryptPad, Loomio, Tor, P2PU, PyPI, Leaf, Let's
Encrypt, Turing, Cloudflare, Ultralytics, Docker, Catalyst, Grist, Expo, Variant, TEN7,
Appwrite)."""
HELD_OUT_NAMES = tuple(name for name, c in CORPORA.items() if c.held_out)
"""The held-out corpora in the order they were added: what the benches fit nothing on."""
DEV_NAMES = tuple(name for name, c in CORPORA.items() if not c.held_out)
"""The development corpora (Clef, TTS, Sourcegraph, Meltano): their turns may be read."""


def held_out_trial(trial: dict[str, Any]) -> bool:
    """Whether a `handbook_trial.py` result ran on a held-out corpus, in any format
    (format_parity's "gitlab_pdf" is GitLab's): a bench then prints its counts only."""
    corpus = trial.get("corpus")
    name = str(corpus.get("name", "") if isinstance(corpus, dict) else corpus or "")
    return any(name == h or name.startswith(f"{h}_") for h in HELD_OUT)


TRIALS = Path(os.environ.get("TRIALS_OUT", ROOT / "bench" / ".trials"))
"""Where `bench/default_trials.sh` writes its runs (trial_TAG_<corpus>.json)."""


def tag_trials(
    tag: str, exclude: Sequence[str] = (), trials: Path = TRIALS
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(corpus, "dev" or "held out", its trial) for every corpus `tag` ran, dev corpora first,
    each in the order it was added; `exclude` names corpora to leave out (the fresh ones)."""
    for name in (*DEV_NAMES, *HELD_OUT_NAMES):
        path = trials / f"trial_{tag}_{name}.json"
        if name not in exclude and path.exists():
            group = "dev" if name in DEV_NAMES else "held out"
            yield name, group, json.loads(path.read_text(encoding="utf-8"))


def corpus_for(name_or_dir: str) -> Corpus:
    """A bundled corpus by name, or any folder of documents with its conversations beside it
    (DIR_conversations.jsonl) and its report in bench/results/<folder name>_trial."""
    if name_or_dir in CORPORA:
        return CORPORA[name_or_dir]
    root = Path(name_or_dir).resolve()
    if not root.is_dir():
        raise SystemExit(f"--corpus: {name_or_dir} is neither {' nor '.join(CORPORA)} nor a folder")
    return Corpus(
        root.name,
        root,
        root.parent / f"{root.name}_conversations.jsonl",
        RESULTS / f"{root.name}_trial",
        root.name,
    )


def shown(path: Path) -> str:
    """A path as the report shows it: inside the repository when it is."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
