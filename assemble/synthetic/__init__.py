"""The synthetic subsets: Ref-Long-A (essays with penguin-count keys) and Ref-Long-F (SummHay news
with insight keys), built on the shared cumulative sampling and writers."""
