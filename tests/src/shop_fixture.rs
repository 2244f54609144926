//! The [`fixture`](crate::fixture) repository grown into a small shop: shipping, stock, customers,
//! payments, e-mail, catalogue search, passwords, reports, checkout and orders next to the billing
//! code, written inline.
//!
//! Why bigger: the map's calibrated checks compare a query with the repository's code, and need
//! at least 50 embedded chunks before a map hit can be confident (core `index::semantic`'s
//! `MIN_BACKGROUND`; the relevance background likewise wants 50 distinct symbols). The base
//! fixture has about 15; with these files the index holds well over 50 chunks on unrelated topics,
//! which is what a background should look like. The billing files are unchanged, so every
//! scenario written against [`crate::fixture`] works here too.

use std::io;
use std::path::Path;

/// The files added to [`crate::fixture::FILES`], as (repository-relative path, contents).
pub const EXTRA_FILES: &[(&str, &str)] = &[
    (
        "src/shipping/rates.py",
        r#""""Shipping costs and delivery estimates."""

ZONES = {"domestic": 1.0, "europe": 2.5, "world": 4.0}
FREE_SHIPPING_OVER = 100.0


def parcel_weight(items):
    """Total weight of the parcel in kilograms."""
    return sum(item.weight * item.quantity for item in items)


def shipping_cost(weight_kg, zone):
    """Price of shipping a parcel of this weight to a zone."""
    base = 4.9 + 1.2 * weight_kg
    return round(base * ZONES.get(zone, ZONES["world"]), 2)


def free_shipping(order_total):
    """Orders above the threshold ship for free."""
    return order_total >= FREE_SHIPPING_OVER


def delivery_days(zone, express=False):
    """Estimated days until the parcel arrives."""
    days = {"domestic": 2, "europe": 5, "world": 10}.get(zone, 14)
    return max(1, days // 2) if express else days


def tracking_url(carrier, tracking_number):
    """Link to the carrier's parcel tracking page."""
    return f"https://track.example.com/{carrier}/{tracking_number}"
"#,
    ),
    (
        "src/inventory/stock.py",
        r#""""Warehouse stock: reservations, restocking and reorder points."""


class OutOfStock(Exception):
    """Raised when a reservation asks for more than is on the shelf."""


class Warehouse:
    """Quantities on hand per product SKU."""

    def __init__(self):
        self.on_hand = {}
        self.reserved = {}

    def restock(self, sku, quantity):
        self.on_hand[sku] = self.on_hand.get(sku, 0) + quantity

    def reserve(self, sku, quantity):
        if self.available(sku) < quantity:
            raise OutOfStock(sku)
        self.reserved[sku] = self.reserved.get(sku, 0) + quantity

    def release(self, sku, quantity):
        self.reserved[sku] = max(0, self.reserved.get(sku, 0) - quantity)

    def available(self, sku):
        return self.on_hand.get(sku, 0) - self.reserved.get(sku, 0)

    def low_stock(self, threshold=5):
        return [sku for sku in self.on_hand if self.available(sku) < threshold]


def reorder_quantity(daily_sales, lead_time_days, safety_stock):
    """How many units to order so the shelf does not run empty."""
    return daily_sales * lead_time_days + safety_stock
"#,
    ),
    (
        "src/customers/accounts.py",
        r#""""Customer accounts and loyalty points."""

import re

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$")


class Customer:
    """A registered customer."""

    def __init__(self, email, name):
        self.email = email
        self.name = name
        self.points = 0
        self.active = True

    def add_points(self, amount_spent):
        self.points += int(amount_spent // 10)

    def deactivate(self):
        self.active = False


def normalize_email(email):
    """Lower-case the address and strip surrounding spaces."""
    return email.strip().lower()


def register_customer(directory, email, name):
    """Create an account unless the address is taken or malformed."""
    email = normalize_email(email)
    if not EMAIL.match(email) or email in directory:
        return None
    directory[email] = Customer(email, name)
    return directory[email]


def greeting(customer):
    """The salutation used in e-mails."""
    return f"Dear {customer.name}"
"#,
    ),
    (
        "src/payments/cards.py",
        r#""""Card payments: validation, masking, charges and refunds."""


class PaymentDeclined(Exception):
    """The payment provider refused the charge."""


def luhn_valid(number):
    """Check a card number with the Luhn checksum."""
    digits = [int(d) for d in str(number)][::-1]
    total = sum(digits[0::2]) + sum(sum(divmod(2 * d, 10)) for d in digits[1::2])
    return total % 10 == 0


def mask_card(number):
    """Show only the last four digits of a card number."""
    return "*" * (len(number) - 4) + number[-4:]


def charge(gateway, card, amount):
    """Charge the card through the payment gateway."""
    if not luhn_valid(card):
        raise PaymentDeclined("invalid card number")
    return gateway.capture(card, amount)


def refund(gateway, payment_id, amount=None):
    """Give money back for a captured payment, fully or partly."""
    return gateway.refund(payment_id, amount)
"#,
    ),
    (
        "src/notifications/email.py",
        r#""""Transactional e-mail: order confirmations and a send queue."""


class EmailQueue:
    """Messages waiting for the mail server."""

    def __init__(self, transport):
        self.transport = transport
        self.pending = []

    def push(self, to, subject, body):
        self.pending.append((to, subject, body))

    def flush(self):
        sent = 0
        while self.pending:
            self.transport.send(*self.pending.pop(0))
            sent += 1
        return sent


def order_subject(order_number):
    """Subject line of the order confirmation."""
    return f"Your order #{order_number} is confirmed"


def render_body(template, **values):
    """Fill a plain-text template with values."""
    return template.format(**values)


def send_order_confirmation(queue, customer, order_number):
    """Queue the confirmation mail for a new order."""
    body = render_body("Hello {name}, thanks for order {number}.", name=customer.name, number=order_number)
    queue.push(customer.email, order_subject(order_number), body)
"#,
    ),
    (
        "src/catalog/search.py",
        r#""""Product catalogue search."""


class Product:
    """A product in the catalogue."""

    def __init__(self, sku, title, popularity=0):
        self.sku = sku
        self.title = title
        self.popularity = popularity


def tokenize(text):
    """Split a search phrase into lower-case words."""
    return [word for word in text.lower().split() if word]


def matches(product, words):
    """Whether every word occurs in the product title."""
    title = product.title.lower()
    return all(word in title for word in words)


def search_products(products, phrase, limit=10):
    """Products whose title contains the phrase, most popular first."""
    words = tokenize(phrase)
    found = [p for p in products if matches(p, words)]
    return sorted(found, key=lambda p: p.popularity, reverse=True)[:limit]
"#,
    ),
    (
        "src/auth/passwords.py",
        r#""""Password hashing and reset tokens."""

import hashlib
import secrets


def hash_password(password, salt):
    """Derive a storable hash with PBKDF2."""
    return hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 100_000).hex()


def verify_password(password, salt, stored):
    """Compare a login attempt with the stored hash in constant time."""
    return secrets.compare_digest(hash_password(password, salt), stored)


def password_strength(password):
    """A 0-4 score: length, digits, upper case and symbols."""
    score = int(len(password) >= 12)
    score += any(c.isdigit() for c in password)
    score += any(c.isupper() for c in password)
    score += any(not c.isalnum() for c in password)
    return score


def reset_token():
    """A random token for the password reset link."""
    return secrets.token_urlsafe(32)
"#,
    ),
    (
        "src/reports/export.py",
        r#""""Exports for the back office: CSV files and sales summaries."""

import csv


def format_money(amount, currency="EUR"):
    """Render an amount with two decimals and the currency code."""
    return f"{amount:,.2f} {currency}"


def daily_sales(orders):
    """Revenue per calendar day."""
    totals = {}
    for order in orders:
        totals[order.day] = totals.get(order.day, 0) + order.total
    return totals


def top_customers(orders, n=10):
    """The customers who spent the most."""
    spent = {}
    for order in orders:
        spent[order.customer] = spent.get(order.customer, 0) + order.total
    return sorted(spent, key=spent.get, reverse=True)[:n]


def export_csv(path, rows, header):
    """Write rows to a CSV file with a header line."""
    with open(path, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows(rows)
"#,
    ),
    (
        "web/checkout.js",
        r#"// Checkout form: address validation, coupons and order submission.

export function validateAddress(address) {
  const missing = ["street", "city", "postcode"].filter((field) => !address[field]);
  return { ok: missing.length === 0, missing };
}

export function applyCoupon(total, coupon) {
  if (coupon.percent) {
    return total * (1 - coupon.percent / 100);
  }
  return Math.max(0, total - coupon.amount);
}

export async function submitOrder(api, cart, address) {
  const response = await api.post("/orders", { cart, address });
  return response.orderNumber;
}

export function renderSummary(lines) {
  return lines.map((line) => `${line.title} x${line.quantity}`).join("\n");
}
"#,
    ),
    (
        "app/Controllers/OrderController.php",
        r#"<?php

namespace App\Controllers;

class OrderController
{
    public function index(int $customerId): array
    {
        return $this->orders->forCustomer($customerId);
    }

    public function store(array $cart, array $address): int
    {
        return $this->orders->create($cart, $address);
    }

    public function cancel(int $orderId): bool
    {
        return $this->orders->markCancelled($orderId);
    }

    private function canCancel(array $order): bool
    {
        return $order['status'] === 'pending';
    }
}
"#,
    ),
];

/// Writes [`crate::fixture::FILES`] and [`EXTRA_FILES`] under `root`, creating directories.
///
/// # Errors
/// The first failed directory creation or write.
pub fn write_shop(root: &Path) -> io::Result<()> {
    crate::fixture::write_fixture(root)?;
    for (rel, contents) in EXTRA_FILES {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, contents)?;
    }
    Ok(())
}
