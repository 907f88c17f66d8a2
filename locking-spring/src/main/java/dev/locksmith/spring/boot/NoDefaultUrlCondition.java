package dev.locksmith.spring.boot;

import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/** Matches when {@code locksmith.url} is not set, so that the URL wins over a RedissonClient. */
final class NoDefaultUrlCondition implements Condition {
  @Override
  public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
    return !StringUtils.hasText(context.getEnvironment().getProperty("locksmith.url"));
  }
}
