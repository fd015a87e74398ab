create table if not exists example_payments (
    id bigserial primary key,
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
create table if not exists example_credits (
    id bigserial primary key,
    account text not null,
    amount numeric(19, 2) not null,
    payment_ref text not null
);
