-- Three accounts of 100.00 each, created once (a second instance on the same database adds nothing).
insert into account (id, balance_cents)
  select v.id, 10000 from (values ('alice'), ('bob'), ('carol')) as v(id)
  where not exists (select 1 from account a where a.id = v.id);
