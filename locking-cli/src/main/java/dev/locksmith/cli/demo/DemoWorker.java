package dev.locksmith.cli.demo;

import dev.locksmith.aspectj.AspectLocksmith;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A demo worker JVM: calls the woven {@link Ledger#deposit()} again and again.
 *
 * <p>Arguments: {@code URL WORKER SECTIONS LEDGER EVENTS TTL WORK}.
 */
public final class DemoWorker {
  private DemoWorker() {}

  /**
   * Runs the worker.
   *
   * @param args {@code URL WORKER SECTIONS LEDGER EVENTS TTL WORK}
   * @throws Exception when the worker fails; its JVM then exits with an error
   */
  public static void main(String[] args) throws Exception {
    String url = args[0];
    int worker = Integer.parseInt(args[1]);
    int sections = Integer.parseInt(args[2]);
    Path ledgerFile = Path.of(args[3]);
    Path events = Path.of(args[4]);
    String ttl = args[5];
    Duration work = Duration.parse(args[6]);
    AspectLocksmith.use(
        Locksmith.builder()
            .defaultProvider(LockProviders.create(url))
            .attributeResolver(value -> value.replace("${locksmith.demo.ttl}", ttl))
            .build());
    Ledger ledger = new Ledger(worker, ledgerFile, events, work.toNanos());
    for (int i = 0; i < sections; i++) {
      ledger.deposit();
    }
    System.exit(0);
  }
}
