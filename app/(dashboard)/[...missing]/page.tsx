import { notFound } from "next/navigation";

// Any path no page answers lands here, inside the dashboard's layout, and gets its not-found page (404).
export default function MissingPage() {
  notFound();
}
