package dev.locksmith.micronaut;

import dev.locksmith.core.internal.Signatures;
import io.micronaut.context.BeanContext;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.micronaut.inject.BeanDefinition;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Present when locking is turned off ({@code locksmith.enabled=false}): at start-up it logs a
 * warning naming how many {@code @DistributedLock} methods the context's beans have, and some of
 * them, since those methods now run without a lock. A switch left off in production should not go
 * unnoticed.
 */
@Context
@Requires(condition = OnOffSwitch.LockingDisabled.class)
final class DisabledLockingWarning {
  private static final Logger LOG = LoggerFactory.getLogger(DisabledLockingWarning.class);
  private static final int NAMED = 5;

  private final List<String> methods;

  DisabledLockingWarning(BeanContext beanContext) {
    this.methods = annotatedMethods(beanContext);
    if (!methods.isEmpty()) {
      LOG.warn(
          "Locking is disabled ({}=false): {} @DistributedLock method(s) will run unlocked: {}{}",
          LocksmithFactory.ENABLED,
          methods.size(),
          methods.stream().limit(NAMED).collect(Collectors.joining(", ")),
          methods.size() > NAMED ? ", ..." : "");
    }
  }

  /** The annotated methods found, named as {@link Signatures#of} names them, sorted. */
  List<String> methods() {
    return methods;
  }

  private static List<String> annotatedMethods(BeanContext beanContext) {
    Set<Method> found = new HashSet<>();
    for (BeanDefinition<?> definition : beanContext.getAllBeanDefinitions()) {
      found.addAll(LockedMethods.annotatedMethods(definition.getBeanType()));
    }
    return found.stream().map(Signatures::of).sorted().toList();
  }
}
