package dev.locksmith.aspectj;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** An application's own annotation standing for {@code @DistributedLock}. */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@DistributedLock(name = "nightly", ttl = "10m", onBusy = OnBusy.SKIP)
@interface NightlyJob {}
