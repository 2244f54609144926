//! Long requests through the real index: a pasted issue with a traceback finds the file its
//! frames name, the hit's explanation says which part of the request matched, and a short
//! request ranks as it did before the analysis (`request_analysis` 0).

use code_intel_core::index::CodeIndex;
use code_intel_core::index::hybrid::{self, Fusion, SearchMode, SearchOptions, Weights};
use code_intel_core::index::rank::RankParams;
use code_intel_core::index::request::PartKind;
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;

/// A small shop: billing, tax, reports, mail. The prose of the issue below is about mail and
/// reports; its traceback is in billing and tax.
const FILES: &[(&str, &str)] = &[
    (
        "shop/billing/invoice.py",
        "from shop.billing.tax import rate_for\n\n\
         class Invoice:\n    def __init__(self, lines, country):\n        self.lines = lines\n        self.country = country\n\n\
         def total_with_tax(invoice):\n    subtotal = sum(l.amount for l in invoice.lines)\n    return subtotal * (1 + rate_for(invoice.country))\n",
    ),
    (
        "shop/billing/tax.py",
        "RATES = {\"DE\": 0.19, \"FR\": 0.2}\n\n\
         def rate_for(country):\n    \"\"\"The VAT rate of a country code.\"\"\"\n    return RATES[country]\n",
    ),
    (
        "shop/reports/monthly.py",
        "from shop.notifications.mail import send_mail\n\n\
         def monthly_report(customer, month):\n    \"\"\"Build the monthly report for a customer and send it by mail.\"\"\"\n    \
         report = render_report(customer, month)\n    send_mail(customer.email, 'Your monthly report', report)\n\n\
         def render_report(customer, month):\n    return f'report for {customer} in {month}'\n",
    ),
    (
        "shop/notifications/mail.py",
        "import smtplib\n\n\
         def send_mail(to, subject, body):\n    \"\"\"Send an email to the customer: the monthly report, invoices, reminders.\"\"\"\n    \
         with smtplib.SMTP('localhost') as s:\n        s.sendmail('shop@example.com', [to], f'Subject: {subject}\\n\\n{body}')\n\n\
         def send_reminder(customer):\n    send_mail(customer.email, 'Reminder', 'Your invoice is due')\n",
    ),
    (
        "shop/customers.py",
        "class Customer:\n    def __init__(self, name, email, country):\n        self.name = name\n        self.email = email\n        self.country = country\n",
    ),
];

const ISSUE: &str = "Monthly report mail to customers crashes for some customers\n\n\
### Describe the bug\n\n\
When the monthly report is sent by mail to a customer, the email never arrives and the report \
job stops. It happens for customers in Switzerland since we opened the shop there; other \
customers get their monthly report mail.\n\n\
### Steps to reproduce\n\n\
1. create a customer in Switzerland\n2. send the monthly report\n\n\
```\n\
Traceback (most recent call last):\n  \
File \"/srv/app/shop/reports/monthly.py\", line 5, in monthly_report\n    \
report = render_report(customer, month)\n  \
File \"/srv/app/shop/billing/invoice.py\", line 10, in total_with_tax\n    \
return subtotal * (1 + rate_for(invoice.country))\n  \
File \"/srv/app/shop/billing/tax.py\", line 5, in rate_for\n    \
return RATES[country]\n\
KeyError: 'CH'\n\
```\n\n\
### Environment\n- OS: Debian 12\n- Python version: 3.12.1\n";

fn index() -> (tempfile::TempDir, CodeIndex) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in FILES {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let root = RepoRoot::new(dir.path()).unwrap();
    let index = CodeIndex::open(&root, &Config::default()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    (dir, index)
}

fn lexical() -> SearchOptions {
    SearchOptions {
        mode: SearchMode::Lexical,
        fusion: Fusion::DEFAULT,
        weights: Weights::from(&Config::default().search_weights),
        candidates: hybrid::CANDIDATES,
    }
}

#[test]
fn a_pasted_traceback_finds_the_frame_where_it_failed_and_says_so() {
    let (_dir, index) = index();
    let params = RankParams::default();
    let results = hybrid::search_ranked(&index, None, None, ISSUE, 10, &lexical(), &params)
        .unwrap()
        .hits;
    // The three files of the traceback's frames come first, above the mail code the prose
    // talks about.
    let mut top3: Vec<&str> = results
        .iter()
        .take(3)
        .map(|h| h.hit.file.as_str())
        .collect();
    top3.sort_unstable();
    assert_eq!(
        top3,
        [
            "shop/billing/invoice.py",
            "shop/billing/tax.py",
            "shop/reports/monthly.py"
        ],
        "{results:#?}"
    );
    let tax = results
        .iter()
        .find(|h| h.hit.file == "shop/billing/tax.py")
        .unwrap();
    let parts: Vec<PartKind> = tax.explanation.request.iter().map(|m| m.part).collect();
    assert_eq!(
        parts.first(),
        Some(&PartKind::Frame),
        "{:?}",
        tax.explanation
    );
    let frame = &tax.explanation.request[0];
    assert!(
        frame.words.iter().any(|w| w.contains("tax.py")),
        "the named file is in the explanation: {frame:?}"
    );
    let exception: Vec<&str> = tax
        .explanation
        .request
        .iter()
        .filter(|m| m.part == PartKind::Exception)
        .flat_map(|m| m.words.iter().map(String::as_str))
        .collect();
    assert!(exception.is_empty() || exception.contains(&"KeyError"));
    // Read as a short request (its first 64 words), the explanation has no parts.
    let off = RankParams {
        request_analysis: 0.0,
        ..RankParams::default()
    };
    assert!(
        hybrid::search_ranked(&index, None, None, ISSUE, 10, &lexical(), &off)
            .unwrap()
            .hits
            .iter()
            .all(|h| h.explanation.request.is_empty())
    );
}

/// `start_session`'s leads read a pasted request through the same analysis as ranked search:
/// the file where the traceback failed leads, above the mail and report code its prose is
/// about, and the reasons name no boilerplate.
#[test]
fn leads_of_a_pasted_traceback_put_the_failing_file_first() {
    let (_dir, index) = index();
    let request = "Monthly report mail crashes for Swiss customers\n\n\
Since we opened the shop in Switzerland, the monthly report mail to these customers is not \
sent.\n\n\
### Steps to reproduce\n\n1. run the monthly report job\n\n\
```\n\
Traceback (most recent call last):\n  \
File \"/srv/app/shop/billing/tax.py\", line 5, in rate_for\n    \
return RATES[country]\n\
KeyError: 'CH'\n\
```\n\n\
### Environment\n- OS: Debian 12\n- Python version: 3.12.1\n";
    let leads = code_intel_core::explore::leads::leads(&index, request, 5).unwrap();
    assert_eq!(
        leads.first().map(|l| l.file.as_str()),
        Some("shop/billing/tax.py"),
        "{leads:#?}"
    );
    // The same order as ranked search's files for the request.
    let files: Vec<String> = index
        .search_files(request, 5, &RankParams::default())
        .unwrap()
        .into_iter()
        .map(|h| h.best.file)
        .collect();
    let lead_files: Vec<String> = leads.iter().map(|l| l.file.clone()).collect();
    assert_eq!(lead_files, files);
    // Read as a short request (its first 64 words), the traceback's file does not lead: the
    // analysis is what puts it first.
    let off = RankParams {
        request_analysis: 0.0,
        ..RankParams::default()
    };
    let before = index.search_files(request, 5, &off).unwrap();
    assert_ne!(
        before.first().map(|h| h.best.file.as_str()),
        Some("shop/billing/tax.py")
    );
    assert!(
        leads[0].why.contains("rate_for") || leads[0].why.contains("tax"),
        "{}",
        leads[0].why
    );
    for lead in &leads {
        for boilerplate in ["reproduc", "debian", "environ"] {
            assert!(!lead.why.contains(boilerplate), "{}", lead.why);
        }
    }
}

#[test]
fn short_requests_rank_as_before_the_analysis() {
    let (_dir, index) = index();
    let off = RankParams {
        request_analysis: 0.0,
        ..RankParams::default()
    };
    for q in [
        "send the monthly report by mail",
        "VAT rate for a country",
        "`rate_for` fails for CH",
        "customer email reminder for an invoice that is due",
    ] {
        let on = hybrid::search_ranked(
            &index,
            None,
            None,
            q,
            10,
            &lexical(),
            &RankParams::default(),
        )
        .unwrap();
        let before = hybrid::search_ranked(&index, None, None, q, 10, &lexical(), &off).unwrap();
        assert_eq!(on.hits, before.hits, "{q}");
        assert!(on.hits.iter().all(|h| h.explanation.request.is_empty()));
    }
}
