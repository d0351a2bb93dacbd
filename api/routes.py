"""Registered API resources."""

from rest_framework.routers import DefaultRouter

router = DefaultRouter()
