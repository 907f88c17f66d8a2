package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micronaut.context.ApplicationContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A default method of a bean's interface that the bean does not override runs locked. */
class DefaultMethodTest {

  @Test
  void anInheritedDefaultMethodRunsLocked() {
    try (ApplicationContext context =
        ApplicationContext.run(Map.of("locksmith.url", "mem:mn-default"), "default-method")) {
      assertThat(context.getBean(DefaultMethodJob.class).daily()).isEqualTo("mn-daily");
    }
  }
}
