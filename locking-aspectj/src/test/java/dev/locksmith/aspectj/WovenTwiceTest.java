package dev.locksmith.aspectj;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A method advised twice by the lock advice still evaluates its key and takes its lock once. */
class WovenTwiceTest {
  @RegisterExtension final FileEngines engines = new FileEngines();

  @Test
  void theMethodCarriesTwoAroundAdvices() {
    assertThat(Arrays.stream(TwiceWoven.class.getDeclaredMethods()).map(Method::getName))
        .filteredOn(name -> name.startsWith("locked_aroundBody"))
        .hasSizeGreaterThanOrEqualTo(2);
  }

  @Test
  void locksOnce() {
    AtomicInteger evaluations = new AtomicInteger();

    String lockId = new TwiceWoven().locked(evaluations);

    assertThat(evaluations).as("key evaluations").hasValue(1);
    assertThat(lockId).isEqualTo("twice:1");
    assertThat(engines.listener.events()).containsExactly("acquired twice:1", "released twice:1");
  }

  @Test
  void aLaterCallIsLockedAgain() {
    AtomicInteger evaluations = new AtomicInteger();
    TwiceWoven woven = new TwiceWoven();

    woven.locked(evaluations);
    woven.locked(evaluations);

    assertThat(evaluations).hasValue(2);
    assertThat(engines.listener.events())
        .containsExactly(
            "acquired twice:1", "released twice:1", "acquired twice:2", "released twice:2");
  }
}
