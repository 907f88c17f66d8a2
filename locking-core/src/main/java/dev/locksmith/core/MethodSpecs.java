package dev.locksmith.core;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.internal.AnnotatedMethods;
import dev.locksmith.core.internal.KeyLanguage;
import dev.locksmith.core.internal.Signatures;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/** Builds, validates and caches the {@link MethodSpec} of each annotated method. */
final class MethodSpecs {
  private final ConcurrentHashMap<Method, MethodSpec> cache = new ConcurrentHashMap<>();
  private final LockNames names = new LockNames();
  private final ConfiguredProviders providers;
  private final UnaryOperator<String> attributeResolver;
  private final Function<Method, String @Nullable []> parameterNames;
  private final @Nullable KeyLanguage keyLanguage;

  MethodSpecs(
      ConfiguredProviders providers,
      UnaryOperator<String> attributeResolver,
      Function<Method, String @Nullable []> parameterNames,
      @Nullable KeyLanguage keyLanguage) {
    this.providers = providers;
    this.attributeResolver = attributeResolver;
    this.parameterNames = parameterNames;
    this.keyLanguage = keyLanguage;
  }

  MethodSpec get(Method method) {
    MethodSpec spec = cache.get(method);
    return spec != null ? spec : cache.computeIfAbsent(method, this::build);
  }

  static String describe(Method method) {
    return "@DistributedLock on " + Signatures.of(method);
  }

  private MethodSpec build(Method method) {
    DistributedLock annotation = AnnotatedMethods.find(method);
    String where = describe(method);
    if (annotation == null) {
      throw new LockConfigurationException(
          method.getDeclaringClass().getName()
              + "."
              + method.getName()
              + " has no @DistributedLock annotation");
    }
    String name = resolve(annotation.name(), where, "name");
    boolean explicitName = !name.isEmpty();
    if (!explicitName) {
      name = method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }
    Duration ttl = duration(annotation.ttl(), where, "ttl");
    if (ttl.isZero()) {
      throw new LockConfigurationException(where + ", attribute ttl: must be longer than zero");
    }
    Duration waitTimeout = duration(annotation.waitTimeout(), where, "waitTimeout");
    Duration minHold = duration(annotation.minHold(), where, "minHold");
    if (!annotation.renew() && minHold.compareTo(ttl) > 0) {
      throw new LockConfigurationException(
          where
              + ", attribute minHold: "
              + annotation.minHold()
              + " is longer than ttl "
              + annotation.ttl()
              + " while renew = false, so the lock could not be held that long");
    }
    if (isSuspending(method)) {
      throw new LockConfigurationException(
          where
              + ": is a Kotlin suspend function, whose lock would end at its first suspension"
              + " point while the rest of its body ran unlocked; lock a function that returns a"
              + " Mono, Flux or CompletableFuture (mono { ... }, future { ... }) instead");
    }
    ReturnKind returnKind = ReturnKind.of(method);
    if (returnKind == ReturnKind.FUTURE) {
      throw new LockConfigurationException(
          where
              + ": returns "
              + method.getReturnType().getName()
              + ", which cannot be held until it completes (it has no completion callback); return"
              + " a CompletableFuture or CompletionStage");
    }
    OnBusy onBusy = annotation.onBusy();
    if (onBusy == OnBusy.AUTO) {
      onBusy = ScheduledMethods.isScheduled(method) ? OnBusy.SKIP : OnBusy.WAIT;
    }
    if (onBusy == OnBusy.SKIP && returnKind == ReturnKind.PRIMITIVE) {
      throw new LockConfigurationException(
          where
              + ", attribute onBusy: "
              + (annotation.onBusy() == OnBusy.AUTO
                  ? "AUTO, which is SKIP on a scheduled method,"
                  : "SKIP")
              + " cannot be used on a method returning "
              + method.getReturnType()
              + " (a skipped call has no value to return); return void, an object,"
              + " Optional or CompletionStage, or use WAIT or FAIL");
    }
    String providerName = resolve(annotation.provider(), where, "provider");
    MethodSpec.NamedProvider provider = providers.resolve(providerName, where);
    String keyText = resolve(annotation.key(), where, "key");
    KeyExpression key =
        keyText.isBlank()
            ? null
            : KeyExpression.parse(
                keyText, method, where, parameterNames.apply(method), keyLanguage);
    LockOptions options =
        new LockOptions(
            name, null, ttl, annotation.renew(), onBusy, waitTimeout, minHold, providerName);
    names.claim(name, method, explicitName, where);
    return new MethodSpec(method, options, key, provider, returnKind);
  }

  private String resolve(String value, String where, String attribute) {
    if (value.isEmpty()) {
      return value;
    }
    try {
      return attributeResolver.apply(value);
    } catch (RuntimeException e) {
      throw new LockConfigurationException(
          where + ", attribute " + attribute + ": '" + value + "' " + e.getMessage(), e);
    }
  }

  private Duration duration(String value, String where, String attribute) {
    String resolved = resolve(value, where, attribute);
    try {
      return Durations.parse(resolved);
    } catch (IllegalArgumentException e) {
      throw new LockConfigurationException(
          where + ", attribute " + attribute + ": " + e.getMessage(), e);
    }
  }

  /**
   * Whether the method is a Kotlin suspend function, compiled with a trailing {@code Continuation}
   * parameter: it returns at its first suspension, long before its work is done.
   */
  private static boolean isSuspending(Method method) {
    Class<?>[] parameters = method.getParameterTypes();
    return parameters.length > 0
        && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation");
  }
}
