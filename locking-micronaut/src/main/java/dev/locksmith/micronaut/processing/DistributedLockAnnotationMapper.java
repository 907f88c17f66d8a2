package dev.locksmith.micronaut.processing;

import dev.locksmith.annotation.DistributedLock;
import io.micronaut.aop.InterceptorBinding;
import io.micronaut.aop.InterceptorKind;
import io.micronaut.core.annotation.AnnotationValue;
import io.micronaut.inject.annotation.TypedAnnotationMapper;
import io.micronaut.inject.visitor.VisitorContext;
import java.util.List;

/**
 * Makes the framework-neutral {@link DistributedLock} an around-advice interceptor binding at
 * compile time, so that Micronaut generates a proxy for every bean with an annotated method and
 * routes its calls through {@code DistributedLockInterceptor}.
 *
 * <p>Runs inside the user's annotation processor: {@code locking-micronaut} must be on the
 * annotation-processor path next to {@code micronaut-inject-java}. It is registered in {@code
 * META-INF/services/io.micronaut.inject.annotation.AnnotationMapper}.
 */
public final class DistributedLockAnnotationMapper
    implements TypedAnnotationMapper<DistributedLock> {

  /** Created by the annotation processor's service loader. */
  public DistributedLockAnnotationMapper() {}

  /** The annotation this mapper handles. */
  @Override
  public Class<DistributedLock> annotationType() {
    return DistributedLock.class;
  }

  /** Adds {@code @InterceptorBinding(value = DistributedLock.class, kind = AROUND)}. */
  @Override
  public List<AnnotationValue<?>> map(
      AnnotationValue<DistributedLock> annotation, VisitorContext visitorContext) {
    return List.of(
        AnnotationValue.builder(InterceptorBinding.class)
            .value(DistributedLock.class)
            .member("kind", InterceptorKind.AROUND)
            .build());
  }
}
