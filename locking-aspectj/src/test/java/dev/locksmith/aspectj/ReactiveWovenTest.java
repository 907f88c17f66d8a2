package dev.locksmith.aspectj;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Woven methods that return a {@code Mono}: the lock is held per subscription. */
class ReactiveWovenTest {
  @RegisterExtension final FileEngines engines = new FileEngines();

  @Test
  void aMistakeInTheAnnotationOfAMonoMethodFailsTheCallNotItsFirstSubscription() {
    // The call returned a Mono that failed only when subscribed to: a caller that never
    // subscribed, or dropped the error signal, never saw it.
    assertThatThrownBy(() -> new MisconfiguredStreams().report())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("MisconfiguredStreams.report()")
        .hasMessageContaining("'ten seconds'");
  }
}
