package dev.locksmith.core;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/** Builds, validates and caches the {@link MethodSpec} of each annotated method. */
final class MethodSpecs {
  private final ConcurrentHashMap<Method, MethodSpec> cache = new ConcurrentHashMap<>();
  private final Providers providers;
  private final UnaryOperator<String> attributeResolver;
  private final Function<Method, String @Nullable []> parameterNames;
  private final Consumer<StandardEvaluationContext> contextCustomizer;

  MethodSpecs(
      Providers providers,
      UnaryOperator<String> attributeResolver,
      Function<Method, String @Nullable []> parameterNames,
      Consumer<StandardEvaluationContext> contextCustomizer) {
    this.providers = providers;
    this.attributeResolver = attributeResolver;
    this.parameterNames = parameterNames;
    this.contextCustomizer = contextCustomizer;
  }

  MethodSpec get(Method method) {
    MethodSpec spec = cache.get(method);
    return spec != null ? spec : cache.computeIfAbsent(method, this::build);
  }

  /** The method's {@code @DistributedLock}, directly or through a meta-annotation. */
  static @Nullable DistributedLock find(Method method) {
    DistributedLock direct = method.getAnnotation(DistributedLock.class);
    if (direct != null) {
      return direct;
    }
    for (Annotation annotation : method.getAnnotations()) {
      DistributedLock meta = findMeta(annotation.annotationType(), new HashSet<>());
      if (meta != null) {
        return meta;
      }
    }
    return null;
  }

  private static @Nullable DistributedLock findMeta(
      Class<? extends Annotation> type, Set<Class<?>> seen) {
    if (!seen.add(type) || type.getName().startsWith("java.lang.annotation.")) {
      return null;
    }
    DistributedLock direct = type.getAnnotation(DistributedLock.class);
    if (direct != null) {
      return direct;
    }
    for (Annotation annotation : type.getAnnotations()) {
      DistributedLock meta = findMeta(annotation.annotationType(), seen);
      if (meta != null) {
        return meta;
      }
    }
    return null;
  }

  static String describe(Method method) {
    return "@DistributedLock on "
        + method.getDeclaringClass().getName()
        + "."
        + method.getName()
        + Arrays.stream(method.getParameterTypes())
            .map(Class::getSimpleName)
            .collect(Collectors.joining(", ", "(", ")"));
  }

  private MethodSpec build(Method method) {
    DistributedLock annotation = find(method);
    String where = describe(method);
    if (annotation == null) {
      throw new LockConfigurationException(
          method.getDeclaringClass().getName()
              + "."
              + method.getName()
              + " has no @DistributedLock annotation");
    }
    String name = resolve(annotation.name(), where, "name");
    if (name.isEmpty()) {
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
    ReturnKind returnKind = ReturnKind.of(method);
    if (annotation.onBusy() == OnBusy.SKIP && returnKind == ReturnKind.PRIMITIVE) {
      throw new LockConfigurationException(
          where
              + ", attribute onBusy: SKIP cannot be used on a method returning "
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
                keyText, method, where, parameterNames.apply(method), contextCustomizer);
    LockOptions options =
        new LockOptions(
            name,
            null,
            ttl,
            annotation.renew(),
            annotation.onBusy(),
            waitTimeout,
            minHold,
            providerName);
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
}
