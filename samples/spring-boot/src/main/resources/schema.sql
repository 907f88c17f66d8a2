-- fence: the highest fencing token that has written the row; a write with a lower one is refused.
create table if not exists account (
  id            varchar(64) primary key,
  balance_cents bigint      not null check (balance_cents >= 0),
  fence         bigint      not null default 0
);
