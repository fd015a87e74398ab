-- The example's tables. Names carry "_v2" where the layout changed (the payment reference): a
-- database that still holds an earlier version's tables keeps them, untouched.
create table if not exists example_payments_v2 (
    id bigserial primary key,
    payment_ref text unique not null,
    client text not null,
    account text not null,
    amount numeric(19, 2) not null,
    created_at timestamptz not null
);
create table if not exists example_accounts (
    id text primary key,
    balance numeric(19, 2) not null,
    fence bigint not null
);
create table if not exists example_credits_v2 (
    id bigserial primary key,
    account text not null,
    amount numeric(19, 2) not null,
    payment_ref text unique not null
);
-- The card network's side (PaymentGateway): one authorisation per key, every call counted.
create table if not exists example_gateway_authorisations (
    auth_key text primary key,
    calls int not null,
    created_at timestamptz not null
);
-- The ledger topic's entries (LedgerListener): one row per entry applied. Not unique by entry id, so
-- a duplicate effect would show as a second row (the crash test counts them).
create table if not exists example_ledger_entries (
    id bigserial primary key,
    entry_id text not null,
    account text not null,
    amount numeric(19, 2) not null
);
create index if not exists example_ledger_entries_entry on example_ledger_entries (entry_id);
