package dev.locksmith.cli.demo;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import dev.locksmith.core.fencing.FencedFile;
import dev.locksmith.core.fencing.StaleFencingTokenException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.LockSupport;

/**
 * The demo's critical section: a read-modify-write of a shared ledger file, fenced by the lease's
 * token. Woven by the AspectJ aspect at build time; no framework.
 */
final class Ledger {
  private final int worker;
  private final FencedFile ledger;
  private final Path events;
  private final long workNanos;

  Ledger(int worker, Path ledger, Path events, long workNanos) {
    this.worker = worker;
    this.ledger = new FencedFile(ledger);
    this.events = events;
    this.workNanos = workNanos;
  }

  @DistributedLock(name = "demo-ledger", ttl = "${locksmith.demo.ttl}", waitTimeout = "2m")
  void deposit() throws IOException {
    Lease lease = Locks.current();
    long token = lease.fencingToken();
    record("acquired", token, 0);
    long balance = 0;
    try {
      String text = ledger.read(token).value().strip();
      balance = text.isEmpty() ? 0 : Long.parseLong(text);
      LockSupport.parkNanos(workNanos); // the work done between reading and writing
      ledger.write(token, Long.toString(balance + 1));
      record("written", token, balance + 1);
    } catch (StaleFencingTokenException e) {
      record("refused", token, balance);
    }
    record("released", token, lease.isValid() ? 0 : 1);
  }

  private void record(String kind, long token, long value) throws IOException {
    Files.writeString(
        events,
        new DemoEvent(System.nanoTime(), worker, kind, token, value).toLine(),
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }
}
