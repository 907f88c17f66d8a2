package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.Locksmith;
import io.micronaut.context.ApplicationContext;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code locksmith.enabled=false} turns locking off: no engine, annotated methods run unlocked, and
 * the start logs a warning naming them.
 */
class DisabledLockingTest {

  @Test
  void withLockingDisabledAnnotatedMethodsRunUnlocked() throws Exception {
    try (ApplicationContext context =
        ApplicationContext.run(Map.of("locksmith.enabled", "false"), "disabled")) {
      assertThat(context.containsBean(Locksmith.class)).isFalse();
      UnlockedJobs jobs = context.getBean(UnlockedJobs.class);
      Gate gate = new Gate();
      CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> jobs.hold(gate));
      gate.awaitEntered();
      // Under a lock this second call would fail (FAIL policy); unlocked, it runs.
      assertThat(jobs.hold(Gate.opened())).isEqualTo("ran");
      gate.open();
      assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo("ran");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"FALSE", "off", "No", " false ", "0"})
  void aSwitchWrittenAnotherWayTurnsLockingOffToo(String off) {
    // An environment variable or a properties file gives the text as written; YAML would have
    // turned most of these into the boolean false already.
    try (ApplicationContext context =
        ApplicationContext.run(Map.of("locksmith.enabled", off), "disabled")) {
      assertThat(context.containsBean(Locksmith.class)).isFalse();
      assertThat(context.getBean(UnlockedJobs.class).hold(Gate.opened())).isEqualTo("ran");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"locksmith.enabled", "locksmith.health.enabled"})
  void aSwitchThatIsNotOnOrOffStopsTheStartNamingIt(String property) {
    assertThatThrownBy(
            () ->
                ApplicationContext.run(
                    Map.of(property, "flase", "locksmith.url", "mem:switch"), "disabled"))
        .satisfies(
            failure -> {
              assertThat(ConfigurationFailures.cause(failure))
                  .hasMessageContaining(property + ": 'flase' is not true or false");
            });
  }

  @Test
  void theStartWarnsThatLockingIsDisabledAndNamesTheMethods(@TempDir Path dir) throws Exception {
    String output =
        ChildAppRuns.output(
            ChildAppRuns.exitingAfterStart("disabled", "locksmith.enabled=false"), dir);
    assertThat(output).contains("context started");
    assertThat(output.lines().filter(line -> line.contains("WARN")))
        .anySatisfy(
            line ->
                assertThat(line)
                    .contains("Locking is disabled (locksmith.enabled=false)")
                    .contains("2 @DistributedLock method(s) will run unlocked")
                    .contains(UnlockedJobs.class.getName() + ".hold")
                    .contains(UnlockedJobs.class.getName() + ".other"));
  }

  @Test
  void noWarningWhenLockingIsEnabled(@TempDir Path dir) throws Exception {
    String output =
        ChildAppRuns.output(
            ChildAppRuns.exitingAfterStart("disabled", "locksmith.url=mem:enabled"), dir);
    assertThat(output).contains("context started").doesNotContain("Locking is disabled");
  }
}
