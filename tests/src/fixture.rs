//! The small multi-language repository every Claude Code case starts from, written inline.
//!
//! Python billing code calls into a tax module; a PHP controller and a JS cart cover the other
//! indexed languages. Symbols are distinct so exploration tools find exactly one definition.

use std::io;
use std::path::Path;

/// The fixture files as (repository-relative path, contents).
pub const FILES: &[(&str, &str)] = &[
    (
        "README.md",
        "# shop\n\nA tiny shop used by the code-intel end-to-end tests.\n",
    ),
    (
        "src/billing/invoice.py",
        r#""""Invoices: line items, discounts and totals."""

from billing.tax import tax_rate


class Invoice:
    """An invoice for one customer."""

    def __init__(self, customer, region):
        self.customer = customer
        self.region = region
        self.items = []

    def add_item(self, name, price, quantity=1):
        self.items.append((name, price, quantity))

    def subtotal(self):
        return sum(price * quantity for _, price, quantity in self.items)

    def total(self):
        return round(self.subtotal() * (1 + tax_rate(self.region)), 2)
"#,
    ),
    (
        "src/billing/tax.py",
        r#""""Sales tax rates by region."""

RATES = {"EU": 0.2, "US": 0.07}


def tax_rate(region):
    """Return the tax rate for a region, 0 when unknown."""
    return RATES.get(region, 0.0)
"#,
    ),
    (
        "src/billing/report.py",
        r#""""Monthly revenue report."""

from billing.invoice import Invoice


def monthly_revenue(invoices):
    return sum(invoice.total() for invoice in invoices)
"#,
    ),
    (
        "web/cart.js",
        r#"// Shopping cart totals shown in the browser.

export function cartTotal(items) {
  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);
}

export function formatPrice(amount) {
  return `$${amount.toFixed(2)}`;
}
"#,
    ),
    (
        "app/Controllers/UserController.php",
        r#"<?php

namespace App\Controllers;

class UserController
{
    public function show(int $id): array
    {
        return ['id' => $id, 'name' => $this->displayName($id)];
    }

    private function displayName(int $id): string
    {
        return "user-" . $id;
    }
}
"#,
    ),
];

/// Writes [`FILES`] under `root`, creating directories.
///
/// # Errors
/// The first failed directory creation or write.
pub fn write_fixture(root: &Path) -> io::Result<()> {
    for (rel, contents) in FILES {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, contents)?;
    }
    Ok(())
}
