package dev.locksmith.benchmarks.report;

import java.util.concurrent.TimeUnit;

/**
 * A stand-in harness for {@link ChildHarnessTest}: {@code ok} prints two kept lines between others
 * and exits 0, {@code fail} prints a line and exits 3, {@code hang} stays up for a minute.
 */
final class HarnessMain {
  private HarnessMain() {}

  public static void main(String[] args) throws InterruptedException {
    switch (args[0]) {
      case "ok" -> {
        System.out.println("warming up");
        System.out.println("kept: one");
        System.err.println("kept: two");
        System.out.println("done");
      }
      case "fail" -> {
        System.out.println("kept: never");
        System.err.println("boom");
        System.exit(3);
      }
      case "hang" -> TimeUnit.MINUTES.sleep(1);
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
  }
}
