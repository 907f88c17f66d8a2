package dev.locksmith.aspectj;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** An annotation that stands for {@code @DistributedLock} two levels deep. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@NightlyJob
@interface WeeklyJob {}
