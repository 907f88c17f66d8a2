package dev.locksmith.core;

import dev.locksmith.core.spi.LockProvider;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * Everything decided once per annotated method: the options, the parsed key, the provider and how
 * the method returns.
 */
record MethodSpec(
    Method method,
    LockOptions options,
    @Nullable KeyExpression key,
    NamedProvider provider,
    ReturnKind returnKind) {

  /** A provider with the name it is configured under. */
  record NamedProvider(String name, LockProvider provider) {}
}
