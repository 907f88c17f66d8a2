package dev.locksmith.core.integration;

import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Adjusts the SpEL evaluation context in which each key expression is evaluated, for example to add
 * a bean resolver so that keys may say {@code @bean.method()}. Given to {@link
 * dev.locksmith.core.Locksmith.Builder#evaluationContext}.
 */
@FunctionalInterface
public interface KeyContextCustomizer {

  /** Adjusts one evaluation's context; its root object is a {@link KeyRoot}. */
  void customize(StandardEvaluationContext context);
}
